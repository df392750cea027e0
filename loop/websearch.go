package loop

import "github.com/agent-dev/agent/providers"

// WebSearch reports a web search the provider ran on its own servers while
// answering (Anthropic's web_search, OpenAI Responses' web_search): what
// it searched for and the pages it found, or its error code. The agent ran
// nothing and asked nobody: the person enabled the search in the config.
type WebSearch struct {
	ID      string
	Query   string
	Sources []providers.Source
	Error   string
}

// Citation reports that the answer streamed so far cites a page a web
// search found; front-ends list an answer's citations as its sources.
type Citation struct {
	URL       string
	Title     string
	CitedText string
}

func (WebSearch) isEvent() {}
func (Citation) isEvent()  {}

// forwardSearch turns a provider's web search events into loop events; ok
// is false for any other event.
func forwardSearch(ev providers.StreamEvent) (Event, bool) {
	switch ev := ev.(type) {
	case providers.WebSearched:
		s := ev.Search
		return WebSearch{ID: s.ID, Query: s.Query, Sources: s.Sources, Error: s.Error}, true
	case providers.Cited:
		c := ev.Citation
		return Citation{URL: c.URL, Title: c.Title, CitedText: c.CitedText}, true
	}
	return nil, false
}
