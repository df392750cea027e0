package sessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// childPrompt is the child's task (its first user message).
func childPrompt(req scripted.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Text()
		}
	}
	return ""
}

// fanOut is a model whose parent starts three subagents in one step; each
// child reads README.md and answers "found <its prompt>". Every child's
// first reply is held until all three children's first requests have
// arrived, so the children can only finish if they run side by side.
type fanOut struct {
	mu      sync.Mutex
	firsts  int
	release chan struct{}
}

func (f *fanOut) respond(req scripted.ChatRequest) scripted.Reply {
	switch {
	case e2e.IsChild(req) && !e2e.HasToolResults(req):
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.firsts++; f.firsts == 3 {
			close(f.release)
		}
		return scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"README.md"}`}).HoldAfterEvents(0, f.release)
	case e2e.IsChild(req):
		return scripted.Text("found " + childPrompt(req))
	case !e2e.HasToolResults(req):
		return scripted.ToolCalls(e2e.TaskCall("task_a", "look at a", "alpha"), e2e.TaskCall("task_b", "look at b", "beta"),
			e2e.TaskCall("task_c", "look at c", "gamma"))
	}
	return scripted.Text("all three answered")
}

// Three task calls in one step run in parallel; each child's answer is its
// call's result; every child event in stream-json carries its call's id;
// the children are sessions linked to the parent, listed by sessions show
// and hidden from sessions list.
func TestThreeSubagentsRunInParallel(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# readme\n"), 0o644)
	model := &fanOut{release: make(chan struct{})}
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: model.respond})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "all", "--output-format", "stream-json", "-p", "research")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests, want 8 (parent 2, children 2 each)", len(reqs))
	}
	// Each child's first request reached the server before any child's
	// second.
	lastFirst, firstSecond := -1, len(reqs)
	for i, r := range reqs {
		if !e2e.IsChild(r.Chat) {
			continue
		}
		if e2e.HasToolResults(r.Chat) {
			firstSecond = min(firstSecond, i)
		} else {
			lastFirst = max(lastFirst, i)
		}
	}
	if lastFirst > firstSecond {
		t.Errorf("a child's second request (%d) came before another's first (%d): the children did not run side by side", firstSecond, lastFirst)
	}
	final := reqs[len(reqs)-1]
	results := e2e.ToolResults(final)
	for id, prompt := range map[string]string{"task_a": "alpha", "task_b": "beta", "task_c": "gamma"} {
		if got := results[id]; !strings.HasPrefix(got, "found "+prompt) || !strings.Contains(got, "subagent completed") {
			t.Errorf("result of %s = %q, want the child's answer", id, got)
		}
	}
	// A child cannot edit or start subagents: it is offered no such tool.
	for _, r := range reqs {
		if e2e.IsChild(r.Chat) {
			for _, name := range []string{"edit_file", "write_file", "task", "todo_write", "exit_plan_mode"} {
				if e2e.ToolNamed(r, name) != nil {
					t.Errorf("a child was offered %s", name)
				}
			}
		}
	}
	inits, tagged := map[string]bool{}, 0
	var parentID string
	for _, obj := range e2e.JSONLines(t, res.Stdout) {
		pid, _ := obj["parent_tool_call_id"].(string)
		if obj["type"] == "init" && pid == "" {
			parentID, _ = obj["session_id"].(string)
		}
		if obj["type"] == "init" && pid != "" {
			inits[pid] = obj["agent"] == "default"
		}
		if pid != "" {
			tagged++
		}
	}
	if len(inits) != 3 || !inits["task_a"] || !inits["task_b"] || !inits["task_c"] {
		t.Errorf("child init events = %v, want one per task call naming the default agent", inits)
	}
	if tagged < 3*4 {
		t.Errorf("%d child events carry parent_tool_call_id, want every child event", tagged)
	}
	list := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "list"}})
	if n := strings.Count(list.Stdout, "\n"); list.Code != 0 || !strings.Contains(list.Stdout, parentID) || strings.Contains(list.Stdout, "look at") {
		t.Errorf("sessions list (%d lines) shows subagents or not the parent:\n%s", n, list.Stdout)
	}
	show := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", parentID}})
	if show.Code != 0 || !strings.Contains(show.Stdout, "subagents (") || strings.Count(show.Stdout, "  completed  ") != 3 {
		t.Fatalf("sessions show lists no subagents:\n%s%s", show.Stdout, show.Stderr)
	}
	var childID string
	for _, line := range strings.Split(show.Stdout, "\n") {
		if strings.Contains(line, "look at b") {
			childID = strings.Fields(line)[0]
		}
	}
	child := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", childID}})
	if !strings.Contains(child.Stdout, "found beta") || !strings.Contains(child.Stdout, fmt.Sprintf("subagent of session %s (its call task_b)", parentID)) {
		t.Errorf("sessions show CHILD:\n%s%s", child.Stdout, child.Stderr)
	}
	exp := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "export", parentID}})
	if !strings.Contains(exp.Stdout, `"parent_call_id": "task_a"`) {
		t.Errorf("export has no subagents:\n%s", exp.Stdout)
	}
}

// An interrupt while three children wait for the model stops them all:
// the run exits 130, each child's session is cancelled, and each task
// call's result says the child did not finish.
func TestInterruptStopsEverySubagent(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(req scripted.ChatRequest) scripted.Reply {
		if e2e.IsChild(req) {
			return scripted.Text("never finished").HoldAfterEvents(0, hold)
		}
		return scripted.ToolCalls(e2e.TaskCall("task_a", "look at a", "alpha"), e2e.TaskCall("task_b", "look at b", "beta"),
			e2e.TaskCall("task_c", "look at c", "gamma"))
	}})
	cmd, sc, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, "--db", db, "--tools", "all", "--output-format", "stream-json", "-p", "research"))
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	if err := srv.WaitRequests(ctx, 4); err != nil { // the parent's and every child's first
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	objs := e2e.WaitForEvent(t, sc, "result")
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	cancelled := 0
	for _, obj := range objs {
		if obj["type"] == "tool_call_finished" && obj["name"] == "task" {
			if c, _ := obj["content"].(string); strings.Contains(c, "did not finish (it was cancelled)") {
				cancelled++
			}
		}
	}
	if cancelled != 3 {
		t.Errorf("%d task results say the child was cancelled, want 3", cancelled)
	}
	parent := objs[0]["session_id"].(string)
	show := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", parent}})
	if strings.Count(show.Stdout, "  cancelled  ") != 3 {
		t.Errorf("sessions show: want three cancelled subagents:\n%s", show.Stdout)
	}
}

// todo_write replaces the session's list: stream-json prints a todo event
// with the list, and the list is stored with the session.
func TestTodoListIsPrintedAndStored(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "t1", Name: "todo_write",
			Arguments: `{"todos":[{"content":"read the code","status":"in_progress"},{"content":"fix it","status":"pending"}]}`}),
		scripted.Text("planned"),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "all", "--output-format", "stream-json", "-p", "plan it")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var todo map[string]any
	var id string
	for _, obj := range e2e.JSONLines(t, res.Stdout) {
		if obj["type"] == "todo" {
			todo = obj
		}
		if obj["type"] == "init" {
			id, _ = obj["session_id"].(string)
		}
	}
	if items, _ := todo["todos"].([]any); len(items) != 2 {
		t.Fatalf("todo event = %v", todo)
	}
	if got := e2e.ToolResults(srv.Requests()[1])["t1"]; got != "The todo list is updated: 0 completed, 1 in progress, 1 pending." {
		t.Errorf("result %q", got)
	}
	exp := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "export", id}})
	if !strings.Contains(exp.Stdout, `"content": "fix it"`) {
		t.Errorf("the list is not stored with the session:\n%s", exp.Stdout)
	}
}

// In plan mode an edit is refused with a result that says so, and a
// headless run ends with the plan of exit_plan_mode as its answer, exit 0.
func TestPlanModeRefusesAnEditAndEndsWithThePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"b.txt","content":"beta\n"}`}),
		scripted.ToolCalls(scripted.Call{ID: "p1", Name: "exit_plan_mode", Arguments: `{"plan":"# Plan\n1. Change a.txt to beta."}`}),
		scripted.Text("never asked for"),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--tools", "all", "--permission-mode", "plan", "-p", "change a.txt")})
	if res.Code != 0 || res.Stdout != "# Plan\n1. Change a.txt to beta.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Errorf("b.txt was written in plan mode")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the run ends with the plan)", len(reqs))
	}
	if got := e2e.ToolResults(reqs[1])["w1"]; !strings.Contains(got, "plan mode is on") {
		t.Errorf("the edit's result %q does not say plan mode is on", got)
	}
	if !strings.Contains(reqs[0].Chat.Messages[0].Text(), "Plan mode is on") {
		t.Errorf("the system prompt does not say plan mode is on")
	}
}

// A child cannot change anything by default: write_file is not its tool,
// and its bash runs in a read-only sandbox (where one can be built).
func TestChildCannotEditByDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(c scripted.ChatRequest) scripted.Reply {
		outs := e2e.ToolOutputs(c)
		switch {
		case e2e.IsChild(c) && len(outs) == 0:
			return scripted.ToolCalls(scripted.Call{ID: "w", Name: "write_file", Arguments: `{"path":"out.txt","content":"x"}`})
		case e2e.IsChild(c) && len(outs) == 1 && e2e.ToolNamed(scripted.Request{Chat: c}, "bash") != nil:
			return scripted.ToolCalls(scripted.Call{ID: "b", Name: "bash", Arguments: `{"command":"echo x > out.txt"}`})
		case e2e.IsChild(c):
			return scripted.Text("child results: " + strings.Join(outs, " | "))
		case len(outs) == 0:
			return scripted.ToolCalls(e2e.TaskCall("task_1", "try to write", "write out.txt"))
		}
		return scripted.Text(outs[0])
	}})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--tools", "all", "-p", "go")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Fatalf("the child wrote out.txt; it said: %s", res.Stdout)
	}
	if strings.Contains(res.Stdout, "the tools are: bash") && !strings.Contains(res.Stdout, "Read-only file system") {
		t.Errorf("the child's bash was not read-only: %s", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "write_file") {
		t.Errorf("the child's write_file call was not refused as unknown: %s", res.Stdout)
	}
}

// In plan mode a read-only command runs (in the read-only sandbox) and one
// that writes, a redirection smuggled into a read-only command included,
// gets a tool error that says plan mode is on.
func TestPlanModeRunsReadOnlyCommandsOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "ls", Name: "bash", Arguments: `{"command":"ls && cat a.txt | grep alp"}`},
			scripted.Call{ID: "redir", Name: "bash", Arguments: `{"command":"cat a.txt > b.txt"}`},
			scripted.Call{ID: "del", Name: "bash", Arguments: `{"command":"find . -name a.txt -delete"}`},
			scripted.Call{ID: "touch", Name: "bash", Arguments: `{"command":"touch c.txt"}`}),
		scripted.ToolCalls(scripted.Call{ID: "p1", Name: "exit_plan_mode", Arguments: `{"plan":"1. nothing"}`}),
	)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--tools", "all", "--permission-mode", "plan", "-p", "look")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	results := e2e.ToolResults(reqs[1])
	if got := results["ls"]; !strings.Contains(got, "a.txt") || !strings.Contains(got, "alpha") {
		t.Errorf("the read-only command did not run in plan mode: %q", got)
	}
	for _, id := range []string{"redir", "del", "touch"} {
		if got := results[id]; !strings.Contains(got, "plan mode is on") {
			t.Errorf("%s: %q, want a refusal that says plan mode is on", id, got)
		}
	}
	for _, name := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written in plan mode", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Errorf("a.txt was deleted in plan mode")
	}
}
