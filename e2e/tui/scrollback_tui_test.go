//go:build linux

package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// After quitting, the conversation stays in the terminal (the alternate
// screen is gone, the transcript is printed) followed by the command that
// resumes the session; that command does resume it.
func TestQuitLeavesTheConversationAndTheResumeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := t.TempDir() + "/agent.db"
	srv := scripted.New(t, scripted.Text("Narwhals have one long tusk."), scripted.Text("Again."))
	args := []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0", "--db", db}
	s := e2e.StartTmux(t, dir, nil, args)
	s.WaitFor("Ask about this repository")
	s.Send("tell me about narwhals")
	s.WaitFor("Narwhals have one long tusk.")
	screen := s.Quit()
	for _, want := range []string{"❯ tell me about narwhals", "Narwhals have one long tusk.", "Resume this session with: agent -r "} {
		if !strings.Contains(screen, want) {
			t.Errorf("after quitting, the terminal lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "Ask about this repository") {
		t.Errorf("the input box was left behind:\n%s", screen)
	}
	m := regexp.MustCompile(`agent -r (\S+)`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no resume command:\n%s", screen)
	}
	r := e2e.StartTmux(t, dir, nil, append(args, "-r", m[1]))
	screen = r.WaitFor("Resumed")
	if !strings.Contains(screen, "tell me about narwhals") {
		t.Errorf("agent -r %s did not resume the conversation:\n%s", m[1], screen)
	}
	r.Quit()
}
