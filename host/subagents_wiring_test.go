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

// A task call starts a subagent: its session is recorded as the parent's
// child, its requests go to the same provider (Config.Provider), and its
// tool calls ask the front-end as the parent's would, the question saying
// which task asks; the child's answer is the task call's result.
func TestTaskSpawnsAChildThatAsksTheSameApproval(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		child := strings.Contains(req.System, "You are a subagent")
		answered := len(toolResults(req)) > 0
		switch {
		case !child && !answered:
			return fake.ToolCalls(call("task-1", "task", `{"description":"count the files","prompt":"Run ls and count.","agent":"runner"}`))
		case child && !answered:
			return fake.ToolCalls(call("ls-1", "bash", `{"command":"ls"}`))
		case child:
			return fake.Text("I was not allowed to run ls.")
		}
		return fake.Text("The subagent could not count them.")
	})
	f := newFixture(t, model, "")
	write(t, f.path(".agent/agents/runner.md"), "---\nname: runner\ndescription: Runs commands.\ntools: bash\n---\nYou run commands.\n")
	a := &asker{answer: loop.Decision{Reason: "No commands today.", Why: "person: denied"}}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk, Asker: a})

	r := runTurn(t, s, "How many files are there?")
	if r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	if res := r.result(t, "task-1"); !strings.Contains(res.Content, "I was not allowed to run ls.") {
		t.Errorf("the task's result %q, want the child's answer", res.Content)
	}

	qs := a.questions()
	if len(qs) != 1 {
		t.Fatalf("the front-end was asked %d questions, want the child's bash call", len(qs))
	}
	q := qs[0].Req
	if q.Call.ID != "ls-1" || q.Origin.ParentCallID != "task-1" || q.Origin.Label != "count the files" {
		t.Errorf("question about %s from %+v, want the child's ls-1 from task-1, count the files", q.Call.ID, q.Origin)
	}

	children, err := s.Store().Children(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 {
		t.Fatalf("the store has %d children of the session, want 1", len(children))
	}
	c := children[0]
	if c.Parent != s.ID() || c.ParentCallID != "task-1" || c.Agent != "runner" || c.Title != "count the files" || q.Session != c.ID {
		t.Errorf("the child's record %+v (question of session %s), want the parent's id and call, the agent and the task", c, q.Session)
	}

	var childRequests int
	for _, req := range model.Requests() {
		if strings.Contains(req.System, "You are a subagent") {
			childRequests++
			if !strings.Contains(req.System, "You run commands.") || lastUser(req) != "Run ls and count." {
				t.Errorf("a child's request with system %q and prompt %q, want the agent's prompt and the task", req.System, lastUser(req))
			}
		}
	}
	if childRequests != 2 {
		t.Errorf("%d of the child's requests reached the provider, want 2", childRequests)
	}
}
