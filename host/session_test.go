package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// A headless run (the zero FrontEnd in auto mode) runs the model's
// read_file call, the model reads the file and answers; the store keeps
// the session, its messages and the call; Close gives the lease back, so
// that -c goes on with the same session and its history, not a fork.
func TestHeadlessTurnRunsAToolAndIsRecorded(t *testing.T) {
	model := fake.New(
		fake.ToolCalls(call("c1", "read_file", `{"path":"notes.txt"}`)),
		fake.Text("The word is plover."),
		fake.Text("Still plover."),
	)
	f := newFixture(t, model, "")
	write(t, f.path("notes.txt"), "the secret word is plover\n")
	ctx := context.Background()

	s := f.open(t, host.Request{Title: "find the word"}, host.FrontEnd{Mode: host.ModeAuto})
	r := runTurn(t, s, "What is the secret word in notes.txt?")
	if r.done.Reason != loop.StopAnswered || r.done.Answer != "The word is plover." {
		t.Fatalf("the turn ended %s with %q (%v), want answered", r.done.Reason, r.done.Answer, r.done.Err)
	}
	if res := r.result(t, "c1"); res.IsError || !strings.Contains(res.Content, "plover") {
		t.Errorf("read_file's result %q (error %v), want the file", res.Content, res.IsError)
	}
	reqs := model.Requests()
	if got := toolResults(reqs[1])["c1"]; !strings.Contains(got.Content, "plover") {
		t.Errorf("the model read %q of its call, want the file", got.Content)
	}

	store, id := s.Store(), s.ID()
	rec, err := store.Get(ctx, id)
	if err != nil {
		t.Fatalf("the session is not in the store: %v", err)
	}
	if rec.Dir != f.dir || rec.Title != "find the word" || rec.Model != "m" {
		t.Errorf("stored session: dir %q, title %q, model %q", rec.Dir, rec.Title, rec.Model)
	}
	msgs, err := store.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if roles := rolesOf(msgs); roles != "user assistant tool assistant" {
		t.Errorf("stored messages: %s, want the prompt, the call, its result and the answer", roles)
	}
	calls, err := store.ToolCalls(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Name != "read_file" || !strings.Contains(calls[0].Result, "plover") {
		t.Errorf("stored tool calls: %+v, want read_file with the file", calls)
	}

	s.Close()
	again := f.open(t, host.Request{Continue: true}, host.FrontEnd{Mode: host.ModeAuto})
	if again.ID() != id || !again.Resumed() {
		t.Errorf("-c opened session %s (resumed %v), want %s: the lease was not given back", again.ID(), again.Resumed(), id)
	}
	if n := len(again.Notices()); n != 0 {
		t.Errorf("notices %q, want none (no fork)", again.Notices())
	}
	if r := runTurn(t, again, "And again?"); r.done.Reason != loop.StopAnswered {
		t.Fatalf("the continued turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	last := model.Requests()[2]
	if roles := rolesOf(last.Messages); roles != "user assistant tool assistant user" {
		t.Errorf("the continued session's request carries %s, want the history and the new prompt", roles)
	}
}

// rolesOf is the roles of msgs, space-separated.
func rolesOf(msgs []providers.Message) string {
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
	}
	return strings.Join(roles, " ")
}
