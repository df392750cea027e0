package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// TestWebSearchShown checks what a person sees of an answer that searched
// the web: a note naming the query and the sites found, the answer, and
// the cited pages listed once each at the end of the turn.
func TestWebSearchShown(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	d.m.handleEvent(loop.TextDelta{Text: "Let me look that up."})
	d.m.handleEvent(loop.WebSearch{ID: "ws_1", Query: "go 1.26", Sources: []providers.Source{
		{URL: "https://go.dev/doc/go1.26"}, {URL: "https://www.github.com/golang/go"}, {URL: "https://go.dev/blog"}}})
	d.m.handleEvent(loop.TextDelta{Text: "Green Tea is the default collector."})
	cite := loop.Citation{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", CitedText: "Green Tea"}
	d.m.handleEvent(cite)
	d.m.handleEvent(cite)
	d.m.handleEvent(loop.Done{Reason: loop.StopAnswered})
	screen := d.screen()
	for _, want := range []string{
		`Searched the web for "go 1.26": 3 results (go.dev, github.com).`,
		"Green Tea is the default collector.",
		"Sources:",
		"[1] Go 1.26 Release Notes — https://go.dev/doc/go1.26",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Count(screen, "[1]") != 1 || strings.Contains(screen, "[2]") {
		t.Errorf("a page cited twice is listed twice:\n%s", screen)
	}
	if strings.Index(screen, "Let me look") > strings.Index(screen, "Searched the web") ||
		strings.Index(screen, "Searched the web") > strings.Index(screen, "Green Tea is") {
		t.Errorf("the search note is not between the texts:\n%s", screen)
	}
}

// TestWebSearchShownInHistory checks a resumed session: its stored search
// and citations are shown as they were during the turn.
func TestWebSearchShownInHistory(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	d.m.showHistory([]providers.Message{
		providers.UserText("what is new?"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{
			providers.WebSearch{ID: "srvtoolu_1", Query: "go 1.26", Error: "max_uses_exceeded"},
			providers.Text{Text: "I could not search."},
			providers.Citation{URL: "https://go.dev", Title: "Go"},
		}},
	})
	screen := d.screen()
	for _, want := range []string{`Web search for "go 1.26" failed: max_uses_exceeded.`, "I could not search.", "[1] Go — https://go.dev"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}
