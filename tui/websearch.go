package tui

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// maxSourceHosts is how many result sites a web search's note names.
const maxSourceHosts = 4

// searchNote describes a finished server-side web search in one note:
// `Searched the web for "go 1.26": 5 results (go.dev, github.com, …)`.
func searchNote(query string, sources []providers.Source, errCode string) string {
	if errCode != "" {
		return fmt.Sprintf("Web search for %q failed: %s.", query, errCode)
	}
	var hosts []string
	seen := map[string]bool{}
	for _, s := range sources {
		u, err := url.Parse(s.URL)
		if err != nil || u.Host == "" || seen[u.Host] {
			continue
		}
		seen[u.Host] = true
		hosts = append(hosts, strings.TrimPrefix(u.Host, "www."))
	}
	if len(hosts) > maxSourceHosts {
		hosts = append(hosts[:maxSourceHosts], "…")
	}
	n := fmt.Sprintf("%d results", len(sources))
	if len(sources) == 1 {
		n = "1 result"
	}
	if len(hosts) > 0 {
		n += " (" + strings.Join(hosts, ", ") + ")"
	}
	return fmt.Sprintf("Searched the web for %q: %s.", query, n)
}

// sourcesNote lists cited pages, numbered, one a line, each once:
// "Sources:\n[1] Title — https://…"; "" when there are none.
func sourcesNote(cs []providers.Citation) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Sources:")
	for i, c := range cs {
		if c.Title != "" {
			fmt.Fprintf(&b, "\n[%d] %s — %s", i+1, c.Title, c.URL)
		} else {
			fmt.Fprintf(&b, "\n[%d] %s", i+1, c.URL)
		}
	}
	return b.String()
}

// webEvent shows a web search as a note after the text so far, and keeps
// each page the answer cites once, for the sources note at the end of the
// turn (showSources).
func (m *Model) webEvent(ev loop.Event) {
	switch ev := ev.(type) {
	case loop.WebSearch:
		m.noteAfterText(searchNote(ev.Query, ev.Sources, ev.Error))
	case loop.Citation:
		for _, c := range m.cited {
			if c.URL == ev.URL {
				return
			}
		}
		m.cited = append(m.cited, providers.Citation{URL: ev.URL, Title: ev.Title, CitedText: ev.CitedText})
	}
}

// showSources adds the note of the pages cited since the last one.
func (m *Model) showSources() {
	if note := sourcesNote(m.cited); note != "" {
		m.noteAfterText(note)
	}
	m.cited = nil
}
