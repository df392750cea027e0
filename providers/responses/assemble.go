package responses

import (
	"strings"

	oai "github.com/openai/openai-go/v3/responses"

	"github.com/agent-dev/agent/providers"
)

// assembler builds a response from the stream's events and reports deltas.
// Each output item (by output_index) becomes one part, in the order of the
// items; a message's url_citation annotations become Citation parts after
// its text.
type assembler struct {
	onEvent func(providers.StreamEvent)

	items    []*item
	byIndex  map[int64]*item
	calls    int
	finish   providers.FinishReason
	model    string // the model the server says answered
	ended    bool   // response.completed or response.incomplete arrived
	failure  *oai.ResponseError
	usage    providers.Usage
	anyDelta bool // a delta was reported to onEvent
}

type itemKind int

const (
	itemMessage itemKind = iota
	itemReasoning
	itemCall
	itemSearch
	itemOther
)

type item struct {
	kind      itemKind
	id        string
	text      strings.Builder // a message's text, a reasoning's summaries, a call's arguments
	summaries int             // summary parts begun, for the blank line between two
	encrypted string
	callID    string
	name      string
	done      bool // output_item.done arrived: the item is complete
	refused   bool
	citations []providers.Citation
	search    providers.WebSearch
}

func newAssembler(onEvent func(providers.StreamEvent)) *assembler {
	return &assembler{onEvent: onEvent, byIndex: map[int64]*item{}}
}

func (a *assembler) emit(ev providers.StreamEvent) {
	switch ev.(type) {
	case providers.TextDelta, providers.ReasoningDelta:
		a.anyDelta = true
	}
	a.onEvent(ev)
}

// add takes one event of the stream.
func (a *assembler) add(ev oai.ResponseStreamEventUnion) {
	switch ev.Type {
	case "response.output_item.added":
		a.begin(ev.OutputIndex, ev.Item)
	case "response.output_text.delta", "response.refusal.delta":
		if it := a.byIndex[ev.OutputIndex]; it != nil {
			it.text.WriteString(ev.Delta)
			it.refused = it.refused || ev.Type == "response.refusal.delta"
			a.emit(providers.TextDelta{Text: ev.Delta})
		}
	case "response.reasoning_summary_part.added":
		if it := a.byIndex[ev.OutputIndex]; it != nil {
			if it.summaries > 0 {
				it.text.WriteString("\n\n")
				a.emit(providers.ReasoningDelta{Text: "\n\n"})
			}
			it.summaries++
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if it := a.byIndex[ev.OutputIndex]; it != nil {
			it.text.WriteString(ev.Delta)
			a.emit(providers.ReasoningDelta{Text: ev.Delta})
		}
	case "response.function_call_arguments.delta":
		if it := a.byIndex[ev.OutputIndex]; it != nil {
			it.text.WriteString(ev.Delta)
		}
	case "response.output_text.annotation.added":
		if it := a.byIndex[ev.OutputIndex]; it != nil && ev.Annotation.Type == "url_citation" {
			c := providers.Citation{URL: ev.Annotation.URL, Title: ev.Annotation.Title,
				CitedText: span(it.text.String(), ev.Annotation.StartIndex, ev.Annotation.EndIndex)}
			it.citations = append(it.citations, c)
			a.emit(providers.Cited{Citation: c})
		}
	case "response.output_item.done":
		a.complete(ev.OutputIndex, ev.Item)
	case "response.completed", "response.incomplete":
		a.model = string(ev.Response.Model)
		a.end(ev.Response)
	case "response.failed":
		e := ev.Response.Error
		a.failure = &e
		a.usage = usageFromWire(ev.Response.Usage)
	case "error":
		a.failure = &oai.ResponseError{Code: oai.ResponseErrorCode(ev.Code), Message: ev.Message}
	}
}

// begin opens the item that output_item.added announces.
func (a *assembler) begin(index int64, wi oai.ResponseOutputItemUnion) {
	it := &item{id: wi.ID}
	switch wi.Type {
	case "message":
		it.kind = itemMessage
	case "reasoning":
		it.kind = itemReasoning
	case "function_call":
		it.kind, it.callID, it.name = itemCall, wi.CallID, wi.Name
		a.emit(providers.ToolCallBegin{Index: a.calls, ID: wi.CallID, Name: wi.Name})
		a.calls++
	case "web_search_call":
		it.kind = itemSearch
	default:
		it.kind = itemOther
	}
	a.items = append(a.items, it)
	a.byIndex[index] = it
}

// complete takes the finished item of output_item.done, which holds the
// item whole: what it says wins over what the deltas built.
func (a *assembler) complete(index int64, wi oai.ResponseOutputItemUnion) {
	it := a.byIndex[index]
	if it == nil {
		a.begin(index, wi)
		it = a.byIndex[index]
	}
	it.done = true
	switch it.kind {
	case itemMessage:
		var text strings.Builder
		var cites []providers.Citation
		for _, c := range wi.Content {
			switch c.Type {
			case "output_text":
				for _, an := range c.Annotations {
					if an.Type == "url_citation" {
						cites = append(cites, providers.Citation{URL: an.URL, Title: an.Title, CitedText: span(c.Text, an.StartIndex, an.EndIndex)})
					}
				}
				text.WriteString(c.Text)
			case "refusal":
				text.WriteString(c.Refusal)
				it.refused = true
			}
		}
		if text.Len() > 0 {
			it.text.Reset()
			it.text.WriteString(text.String())
		}
		if len(it.citations) == 0 {
			for _, c := range cites {
				a.emit(providers.Cited{Citation: c})
			}
			it.citations = cites
		}
	case itemReasoning:
		it.encrypted = wi.EncryptedContent
		if it.text.Len() == 0 {
			var parts []string
			for _, s := range wi.Summary {
				parts = append(parts, s.Text)
			}
			it.text.WriteString(strings.Join(parts, "\n\n"))
		}
	case itemCall:
		if args := wi.Arguments.OfString; args != "" {
			it.text.Reset()
			it.text.WriteString(args)
		}
		it.callID, it.name = wi.CallID, wi.Name
	case itemSearch:
		it.search = providers.WebSearch{ID: wi.ID, Query: wi.Action.Query, Vendor: vendor}
		if it.search.Query == "" && len(wi.Action.Queries) > 0 {
			it.search.Query = strings.Join(wi.Action.Queries, "; ")
		}
		if it.search.Query == "" && wi.Action.URL != "" {
			it.search.Query = wi.Action.URL // an open_page or find_in_page action
		}
		for _, s := range wi.Action.Sources {
			it.search.Sources = append(it.search.Sources, providers.Source{URL: s.URL})
		}
		if wi.Status == "failed" {
			it.search.Error = "failed"
		}
		a.emit(providers.WebSearched{Search: it.search})
	}
}

// vendor is the providers.WebSearch.Vendor of this adapter.
const vendor = "openai-responses"

// end takes the final response of response.completed or
// response.incomplete: its usage and why it stopped.
func (a *assembler) end(r oai.Response) {
	a.ended = true
	a.usage = usageFromWire(r.Usage)
	for _, it := range a.items {
		if it.kind == itemSearch && it.done && it.search.Error == "" {
			a.usage.WebSearches++
		}
	}
	switch {
	case r.IncompleteDetails.Reason == "max_output_tokens":
		a.finish = providers.FinishLength
	case r.IncompleteDetails.Reason == "content_filter":
		a.finish = providers.FinishContentFilter
	case a.refused():
		a.finish = providers.FinishContentFilter
	case a.calls > 0:
		a.finish = providers.FinishToolCalls
	default:
		a.finish = providers.FinishStop
	}
}

func (a *assembler) refused() bool {
	for _, it := range a.items {
		if it.refused {
			return true
		}
	}
	return false
}

// usageFromWire maps the response's usage: input_tokens counts the cached
// ones too, as providers.Usage wants.
func usageFromWire(u oai.ResponseUsage) providers.Usage {
	return providers.Usage{
		InputTokens:       int(u.InputTokens),
		OutputTokens:      int(u.OutputTokens),
		CachedInputTokens: int(u.InputTokensDetails.CachedTokens),
		ReasoningTokens:   int(u.OutputTokensDetails.ReasoningTokens),
	}
}

// response returns what was assembled. When the stream failed (complete
// is false) function calls are left out, their arguments may be cut, and
// so is a reasoning item that did not finish, unless it has text to show.
func (a *assembler) response(complete bool) *providers.Response {
	r := &providers.Response{FinishReason: a.finish, Usage: a.usage, Model: a.model}
	r.Message.Role = providers.RoleAssistant
	add := func(p providers.Part) { r.Message.Parts = append(r.Message.Parts, p) }
	for _, it := range a.items {
		switch it.kind {
		case itemMessage:
			if it.text.Len() > 0 {
				add(providers.Text{Text: it.text.String()})
			}
			for _, c := range it.citations {
				add(c)
			}
		case itemReasoning:
			rs := providers.Reasoning{Text: it.text.String()}
			if it.done && it.encrypted != "" {
				rs.Encrypted, rs.ItemID = it.encrypted, it.id
			}
			if rs.Text != "" || rs.Encrypted != "" {
				add(rs)
			}
		case itemCall:
			if !complete || !it.done {
				continue
			}
			args := it.text.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			add(providers.ToolCall{ID: it.callID, Name: it.name, Arguments: args})
		case itemSearch:
			if it.done {
				add(it.search)
			}
		}
	}
	return r
}

// span is the text of s between two character offsets (OpenAI counts
// characters, not bytes), or "" when they do not fit s.
func span(s string, start, end int64) string {
	r := []rune(s)
	if start < 0 || end <= start || end > int64(len(r)) {
		return ""
	}
	return string(r[start:end])
}
