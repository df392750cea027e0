package conversation

import (
	"math"

	"github.com/agent-dev/agent/providers"
)

// BytesPerToken is the estimate's ratio of bytes to tokens where the server
// has reported nothing to calibrate it: about right for English and code
// with OpenAI's and Anthropic's tokenizers, a little high (so cautious) for
// JSON.
const BytesPerToken = 4

// Sizes is a request's content in bytes, split as /context shows it.
type Sizes struct {
	System  int // the system prompt
	Tools   int // tool definitions: names, descriptions, schemas
	History int // the messages
}

// Total returns the sum of the parts in bytes.
func (s Sizes) Total() int { return s.System + s.Tools + s.History }

// SizeOf measures req's content in bytes: what a model reads, without the
// wire format's punctuation. A deferred tool counts its name alone: its
// definition is read where a tool result loads it, and counts there.
func SizeOf(req providers.Request) Sizes {
	s := Sizes{System: len(req.System)}
	for _, t := range req.Tools {
		s.Tools += len(t.Name)
		if !t.Deferred {
			s.Tools += len(t.Description) + len(t.Parameters)
		}
	}
	for _, m := range req.Messages {
		s.History += MessageSize(m)
	}
	return s
}

// MessageSize is the bytes of one message's content.
func MessageSize(m providers.Message) int {
	n := 0
	for _, p := range m.Parts {
		switch p := p.(type) {
		case providers.Text:
			n += len(p.Text)
		case providers.Reasoning:
			n += len(p.Text)
		case providers.ToolCall:
			n += len(p.ID) + len(p.Name) + len(p.Arguments)
		case providers.ToolResult:
			n += len(p.CallID) + len(p.PlainContent())
		case providers.Image:
			n += len(p.Describe())
		case providers.WebSearch:
			n += len(p.Raw) // what the adapter that wrote it sends back
		}
	}
	return n
}

// Estimate returns the input tokens req will carry: the tokens the server
// reported for the last request plus the bytes added since, or the whole
// content when no request was measured since the start or the latest
// compaction. Bytes count at the denser of BytesPerToken and what the
// server's counts showed (a tokenizer that makes more tokens of a byte, as
// for CJK text, is never underestimated).
func (c *Conversation) Estimate(req providers.Request) int {
	size := SizeOf(req).Total()
	c.mu.Lock()
	last, perByte := c.last, max(c.perByte, 1.0/BytesPerToken)
	c.mu.Unlock()
	if last.InputTokens <= 0 || last.Bytes <= 0 {
		return int(math.Ceil(float64(size) * perByte))
	}
	return max(last.InputTokens+int(math.Ceil(float64(size-last.Bytes)*perByte)), Tokens(size)/2)
}

// Tokens converts a size in bytes to tokens at BytesPerToken, rounding up.
func Tokens(bytes int) int { return (bytes + BytesPerToken - 1) / BytesPerToken }
