package cmd

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// citationObject is a cited page in the json and stream-json result.
type citationObject struct {
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	CitedText string `json:"cited_text,omitempty"`
}

// webEvent records a web search or a citation: a progress line on stderr
// for a search in text mode, and each cited page once for the result.
func (p *printer) webEvent(ev loop.Event) {
	switch ev := ev.(type) {
	case loop.WebSearch:
		if p.progress && p.format == formatText {
			fmt.Fprintf(p.errOut, "· %s\n", searchLine(ev))
		}
	case loop.Citation:
		for _, c := range p.citations {
			if c.URL == ev.URL {
				return
			}
		}
		p.citations = append(p.citations, ev)
	}
}

// searchLine describes a finished web search in one line.
func searchLine(s loop.WebSearch) string {
	switch {
	case s.Error != "":
		return fmt.Sprintf("web search %q failed: %s", s.Query, s.Error)
	case len(s.Sources) == 1:
		return fmt.Sprintf("web search %q: 1 result", s.Query)
	default:
		return fmt.Sprintf("web search %q: %d results", s.Query, len(s.Sources))
	}
}

// webObject is the stream-json form of a web search or citation event:
//
//	{"type":"web_search","id":"...","query":"...","sources":[{"url":"...","title":"..."}],"error":"..."}
//	{"type":"citation","url":"...","title":"...","cited_text":"..."}
func webObject(ev loop.Event) map[string]any {
	switch ev := ev.(type) {
	case loop.WebSearch:
		sources := ev.Sources
		if sources == nil {
			sources = []providers.Source{}
		}
		obj := map[string]any{"type": "web_search", "id": ev.ID, "query": ev.Query, "sources": sources}
		if ev.Error != "" {
			obj["error"] = ev.Error
		}
		return obj
	case loop.Citation:
		return map[string]any{"type": "citation", "url": ev.URL, "title": ev.Title, "cited_text": ev.CitedText}
	}
	return nil
}

func citationObjects(cs []loop.Citation) []citationObject {
	var out []citationObject
	for _, c := range cs {
		out = append(out, citationObject(c))
	}
	return out
}

// sourcesText is the list of cited pages printed after a text answer:
// "\n\nSources:\n[1] Title <url>", or "" when nothing was cited.
func sourcesText(cs []loop.Citation) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nSources:")
	for i, c := range cs {
		title := c.Title
		if title == "" {
			title = c.URL
		}
		fmt.Fprintf(&b, "\n[%d] %s <%s>", i+1, title, c.URL)
	}
	return b.String()
}

// webLine is a stored web search or citation in one line, for `agent
// sessions show` and export: `web search "q": 3 results` or
// `cited: Title <https://...>`.
func webLine(p providers.Part) string {
	switch p := p.(type) {
	case providers.WebSearch:
		return searchLine(loop.WebSearch{Query: p.Query, Sources: p.Sources, Error: p.Error})
	case providers.Citation:
		if p.Title == "" {
			return "cited: <" + p.URL + ">"
		}
		return "cited: " + p.Title + " <" + p.URL + ">"
	}
	return ""
}
