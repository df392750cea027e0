package host_test

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// A command the person runs with "!" runs without a question, under the
// deny rules, and what it printed reaches the model with the next prompt,
// once.
func TestPersonsShellCommandJoinsTheNextPrompt(t *testing.T) {
	model := fake.New(fake.Text("seen"), fake.Text("again"))
	f := newFixture(t, model, "[permissions]\ndeny = [\"rm\"]\n")
	write(t, f.path("notes.txt"), "NOTE-CONTENT\n")
	a := &asker{}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk, Asker: a})
	res, err := s.Shell(t.Context(), "cat notes.txt")
	if err != nil || res.IsError || !strings.Contains(res.Content, "NOTE-CONTENT") {
		t.Fatalf("Shell: %+v, %v", res, err)
	}
	if denied, err := s.Shell(t.Context(), "rm notes.txt"); err != nil || !denied.IsError || !exists(f.path("notes.txt")) {
		t.Fatalf("a denied command: %+v, %v", denied, err)
	}
	if len(a.questions()) != 0 {
		t.Errorf("the person was asked about their own command")
	}
	runTurn(t, s, "what did I see?")
	runTurn(t, s, "and now?")
	reqs := model.Requests()
	if got := lastUser(reqs[0]); !strings.Contains(got, "<bash-input>cat notes.txt</bash-input>") || !strings.Contains(got, "NOTE-CONTENT") || strings.Contains(got, "rm notes.txt") {
		t.Errorf("the next prompt carried %q", got)
	}
	if got := lastUser(reqs[1]); strings.Contains(got, "bash-input") {
		t.Errorf("the command's output was told twice: %q", got)
	}
}
