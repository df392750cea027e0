package providers

import "encoding/json"

// WebSearch is a web search the provider ran on its own servers during a
// response (Anthropic's web_search server tool, OpenAI Responses'
// web_search tool): a part of an assistant message, in the place the
// search happened. The agent runs nothing for it; it is shown, stored and,
// by the adapter that wrote it, sent back.
type WebSearch struct {
	// ID is the vendor's id of the search ("srvtoolu_...", "ws_...").
	ID string
	// Query is what was searched for; empty when the vendor did not say.
	Query string
	// Sources are the pages the search found, in the vendor's order.
	Sources []Source
	// Error is the vendor's error code when the search failed
	// ("max_uses_exceeded", "unavailable"), else empty.
	Error string
	// Vendor names the wire format of Raw: "anthropic" or
	// "openai-responses". Raw is the vendor's own blocks of the search (for
	// Anthropic, the server_tool_use and web_search_tool_result blocks as a
	// JSON array), which only that vendor's adapter sends back; nil when
	// there is nothing to send back.
	Vendor string
	Raw    json.RawMessage
}

// Source is one page a web search found: its address and title.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Citation says that the Text part before it quotes or relies on a page a
// web search found. CitedText is the passage cited, when the vendor says
// which (Anthropic quotes it; OpenAI gives a span of the answer, and
// CitedText is that span). Adapters send no citation back: they are for the
// person reading the answer.
type Citation struct {
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	CitedText string `json:"cited_text,omitempty"`
}

func (WebSearch) isPart() {}
func (Citation) isPart()  {}

// WebSearched reports that a server-side web search finished (its sources
// are known, or its error); the same search is a WebSearch part of the
// response.
type WebSearched struct{ Search WebSearch }

// Cited reports a citation of the text streamed so far; the same citation
// is a Citation part of the response.
type Cited struct{ Citation Citation }

func (WebSearched) isStreamEvent() {}
func (Cited) isStreamEvent()       {}

// Citations returns the message's Citation parts in order, each URL once
// (the first citation of a page stands for all).
func (m Message) Citations() []Citation {
	var out []Citation
	seen := map[string]bool{}
	for _, p := range m.Parts {
		if c, ok := p.(Citation); ok && !seen[c.URL] {
			seen[c.URL] = true
			out = append(out, c)
		}
	}
	return out
}
