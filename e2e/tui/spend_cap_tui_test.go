//go:build linux

package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestSpendCapAsksToRaiseOrStop: in the interface a turn that reaches its
// spend cap asks whether to raise it (the same amount again, from what
// was spent) or stop. Raise lets the turn finish without a new prompt;
// stop ends it with a line saying the cap was reached and the spend.
func TestSpendCapAsksToRaiseOrStop(t *testing.T) {
	t.Parallel()
	for _, raise := range []bool{true, false} {
		name := "stop"
		if raise {
			name = "raise"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, e2e.SpendCapTask()...)
			cfg := e2e.SpendCapConfig(t, srv.URL(), "")
			s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--config", cfg, "--max-retries", "0", "--tools", "all",
				"--db", filepath.Join(t.TempDir(), "a.db"), "--max-budget-usd", e2e.SpendCapUSD})
			s.WaitFor("Ask about this repository")
			s.Send("list the files three times")
			screen := s.WaitFor("Raise the cap to $0.0022 and go on")
			if !strings.Contains(screen, "Spend cap reached") || !strings.Contains(screen, "spend cap of $0.0010 was reached ($0.0012") {
				t.Errorf("the question does not say what was reached and spent:\n%s", screen)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests while the question waits, want 2", n)
			}
			s.WaitFor("↑/↓ choose")
			if raise {
				s.Keys("Enter")
				s.WaitFor(e2e.SpendCapAnswer)
				if n := len(srv.Requests()); n != 3 {
					t.Errorf("%d requests after the raise, want 3", n)
				}
			} else {
				s.Keys("Down", "Enter")
				s.WaitFor("Stopped: the session's spend cap of $0.0010 was reached ($0.0012")
				if n := len(srv.Requests()); n != 2 {
					t.Errorf("%d requests after stop, want 2", n)
				}
			}
			s.Quit()
		})
	}
}
