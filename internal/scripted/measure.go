package scripted

import "encoding/json"

// BytesPerToken is the ratio MeasurePrompt and MeasureCached count with.
const BytesPerToken = 4

// MeasurePrompt is the prompt tokens a request body counts as: its bytes at
// BytesPerToken, rounded up.
func MeasurePrompt(body []byte) int { return (len(body) + BytesPerToken - 1) / BytesPerToken }

// ProviderOrder renders a request the way providers lay it out for their
// prefix caches (OpenAI's and Anthropic's prompt caching): the tool
// definitions first, then the messages in order, the system prompt being the
// first message. A change to the tools therefore changes everything after
// it.
func ProviderOrder(c ChatRequest) []byte {
	tools, _ := json.Marshal(c.Tools)
	msgs, _ := json.Marshal(c.Messages)
	return append(tools, msgs...)
}

// MeasureCached is the tokens of cur a prefix cache serves after prev: the
// common prefix of the two in provider order (see ProviderOrder), in whole
// tokens at BytesPerToken. Real caches work in blocks (OpenAI's of 128
// tokens from 1,024 on); this counts every shared byte, an upper bound.
func MeasureCached(prev, cur []byte) int {
	n := 0
	for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
		n++
	}
	return n / BytesPerToken
}
