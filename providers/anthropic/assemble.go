package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-dev/agent/providers"
)

// assembler builds a response from the stream's events and reports deltas.
// Each content block becomes one part, in the order of the blocks.
type assembler struct {
	onEvent func(providers.StreamEvent)

	blocks   []*block
	byIndex  map[int64]*block
	searches map[string]*search // by server_tool_use id
	calls    int
	finish   providers.FinishReason
	model    string // the model the server says answered
	stopped  bool   // message_stop arrived
	usage    sdk.Usage
	output   int64
	deltaIn  sdk.MessageDeltaUsage
	anyDelta bool // a delta was reported to onEvent
	// searchCount is message_delta's server_tool_use.web_search_requests.
	searchCount int
}

type blockKind int

const (
	blockText blockKind = iota
	blockThinking
	blockRedacted
	blockToolUse
	blockSearch       // server_tool_use: the search, a WebSearch part
	blockSearchResult // web_search_tool_result: folded into its search
)

type block struct {
	kind      blockKind
	text      strings.Builder // text, thinking, or a tool call's input JSON
	signature string
	data      string // redacted thinking
	id, name  string
	citations []providers.Citation // a text block's
	search    *search              // a server_tool_use block's
}

func newAssembler(onEvent func(providers.StreamEvent)) *assembler {
	return &assembler{onEvent: onEvent, byIndex: map[int64]*block{}, searches: map[string]*search{}}
}

func (a *assembler) emit(ev providers.StreamEvent) {
	switch ev.(type) {
	case providers.TextDelta, providers.ReasoningDelta:
		a.anyDelta = true
	}
	a.onEvent(ev)
}

// add takes one event of the stream.
func (a *assembler) add(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		a.model = string(ev.Message.Model)
		a.usage = ev.Message.Usage
		a.output = ev.Message.Usage.OutputTokens
	case "content_block_start":
		cb := ev.ContentBlock
		b := &block{}
		switch cb.Type {
		case "thinking":
			b.kind = blockThinking
			b.text.WriteString(cb.Thinking)
			b.signature = cb.Signature
		case "redacted_thinking":
			b.kind, b.data = blockRedacted, cb.Data
		case "tool_use":
			b.kind, b.id, b.name = blockToolUse, cb.ID, cb.Name
			a.emit(providers.ToolCallBegin{Index: a.calls, ID: cb.ID, Name: cb.Name})
			a.calls++
		case "server_tool_use":
			b.kind, b.search = blockSearch, &search{id: cb.ID, name: cb.Name}
			a.searches[cb.ID] = b.search
		case "web_search_tool_result":
			b.kind = blockSearchResult
			if s := a.searches[cb.ToolUseID]; s != nil {
				s.take(cb)
				a.emit(providers.WebSearched{Search: s.part})
			}
		default:
			b.kind = blockText
			b.text.WriteString(cb.Text)
		}
		a.blocks = append(a.blocks, b)
		a.byIndex[ev.Index] = b
	case "content_block_delta":
		b := a.byIndex[ev.Index]
		if b == nil {
			return
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			b.text.WriteString(d.Text)
			a.emit(providers.TextDelta{Text: d.Text})
		case "thinking_delta":
			b.text.WriteString(d.Thinking)
			a.emit(providers.ReasoningDelta{Text: d.Thinking})
		case "signature_delta":
			b.signature += d.Signature
		case "input_json_delta":
			if b.search != nil {
				b.search.input.WriteString(d.PartialJSON)
			} else {
				b.text.WriteString(d.PartialJSON)
			}
		case "citations_delta":
			if c, ok := citation(d.Citation); ok {
				b.citations = append(b.citations, c)
				a.emit(providers.Cited{Citation: c})
			}
		}
	case "message_delta":
		a.finish = finishReason(ev.Delta.StopReason)
		a.output = ev.Usage.OutputTokens
		a.deltaIn = ev.Usage
		a.searchCount = int(ev.Usage.ServerToolUse.WebSearchRequests)
	case "message_stop":
		a.stopped = true
	}
}

// response returns what was assembled. When the stream failed (complete
// is false) tool calls are left out, their input may be cut, and so is a
// thinking block without its signature, unless it has text to show: the
// adapter never sends an unsigned one back.
func (a *assembler) response(complete bool) *providers.Response {
	r := &providers.Response{FinishReason: a.finish, Usage: a.neutralUsage(), Model: a.model}
	r.Message.Role = providers.RoleAssistant
	for _, b := range a.blocks {
		switch b.kind {
		case blockText:
			if b.text.Len() > 0 {
				r.Message.Parts = append(r.Message.Parts, providers.Text{Text: b.text.String()})
			}
			for _, c := range b.citations {
				r.Message.Parts = append(r.Message.Parts, c)
			}
		case blockSearch:
			r.Message.Parts = append(r.Message.Parts, b.search.toPart())
		case blockThinking:
			if b.text.Len() > 0 || b.signature != "" {
				r.Message.Parts = append(r.Message.Parts, providers.Reasoning{Text: b.text.String(), Signature: b.signature})
			}
		case blockRedacted:
			r.Message.Parts = append(r.Message.Parts, providers.Reasoning{Redacted: b.data})
		case blockToolUse:
			if !complete {
				continue
			}
			args := b.text.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			r.Message.Parts = append(r.Message.Parts, providers.ToolCall{ID: b.id, Name: b.name, Arguments: args})
		}
	}
	return r
}

// neutralUsage counts every input token in InputTokens, the cache's reads
// and writes included; message_delta's counts, which are cumulative, win
// over message_start's when present.
func (a *assembler) neutralUsage() providers.Usage {
	in, read, write := a.usage.InputTokens, a.usage.CacheReadInputTokens, a.usage.CacheCreationInputTokens
	if d := a.deltaIn; d.InputTokens > 0 || d.CacheReadInputTokens > 0 || d.CacheCreationInputTokens > 0 {
		in, read, write = d.InputTokens, d.CacheReadInputTokens, d.CacheCreationInputTokens
	}
	return providers.Usage{
		InputTokens:       int(in + read + write),
		OutputTokens:      int(a.output),
		CachedInputTokens: int(read),
		CacheWriteTokens:  int(write),
		WebSearches:       a.searchCount,
	}
}
