//go:build linux

package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// Prompts typed and sent while a turn runs are queued, shown under the
// conversation, and sent after the turn, in order.
func TestQueuedPromptsInTheInterface(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{}) // a stream held is let go when the server closes
	srv := scripted.New(t,
		scripted.Text("Walruses stream slowly and then the rest").WithPieceSize(4).HoldAfterEvents(3, hold),
		scripted.Text("Second answer, about otters."),
		scripted.Text("Third answer, about seals."),
	)
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")
	s.Send("first question")
	s.WaitFor("Walruses")
	s.Send("and otters?")
	s.WaitFor("queued: and otters?")
	s.Send("and seals?")
	screen := s.WaitFor("queued: and seals?")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests while the first turn runs, want 1:\n%s", n, screen)
	}
	close(hold)
	s.WaitFor("Third answer, about seals.")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"first question", "and otters?", "and seals?"} {
		if got := e2e.LastUserText(reqs[i]); got != want {
			t.Errorf("request %d ends with %q, want %q", i, got, want)
		}
	}
	if screen := s.Screen(); strings.Contains(screen, "queued:") {
		t.Errorf("the queue is still shown after it was sent:\n%s", screen)
	}
	s.Quit()
}
