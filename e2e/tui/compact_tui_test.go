//go:build linux

package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// /compact in the interface, as a person types it: the older messages are
// summarised, /context shows the compaction, and the next prompt is sent
// with the summary instead of what was compacted.
func TestCompactInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.Text("Zebras have stripes."),
		scripted.Text("Goal: learn about zebras. Done: stripes explained."),
		scripted.Text("Giraffes have long necks."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0",
		"--db", t.TempDir() + "/agent.db"})
	s.WaitFor("Ask about this repository")
	s.Send("tell me about zebras")
	s.WaitFor("Zebras have stripes.")
	s.Idle() // the answer shows before the turn ends

	s.Send("/compact keep the animal names")
	s.WaitFor("Compacted: about")
	s.Send("/context")
	screen := s.WaitFor("compacted 1×")
	for _, want := range []string{"system prompt", "tool definitions", "history"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/context lacks %q:\n%s", want, screen)
		}
	}

	s.Send("and giraffes?")
	s.WaitFor("Giraffes have long necks.")
	reqs := srv.Requests()
	summary := reqs[1]
	if summary.Chat.MayCallTools() || !strings.Contains(e2e.LastUserText(summary), "keep the animal names") {
		t.Errorf("the summary request lets the model call tools (%s) or ends with %q", summary.Chat.ToolChoice, e2e.LastUserText(summary))
	}
	next := e2e.Roles(reqs[2])
	if len(next) != 4 || !strings.Contains(reqs[2].Chat.Messages[1].Text(), "Goal: learn about zebras") ||
		next[2] != "assistant:Zebras have stripes." || next[3] != "user:and giraffes?" {
		t.Errorf("the request after /compact is %q", next)
	}
}
