//go:build linux

package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A defined agent's command needs approval: the question is asked in the
// parent's interface, labelled with the child's description, and once
// allowed the child runs it and its answer reaches the parent.
func TestSubagentAsksInTheParentsInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agent", "agents"), 0o755)
	e2e.WriteFile(t, dir, ".agent/agents/runner.md", "---\nname: runner\ndescription: Runs commands\ntools: Bash, Read\n---\nYou run commands.\n")
	args, _ := json.Marshal(map[string]string{"description": "make the file", "prompt": "make made.txt", "agent": "runner"})
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(c scripted.ChatRequest) scripted.Reply {
		switch {
		case e2e.IsChild(c) && !e2e.HasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "child_b", Name: "bash", Arguments: `{"command":"echo made > made.txt"}`})
		case e2e.IsChild(c):
			return scripted.Text("made it")
		case !e2e.HasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "task_1", Name: "task", Arguments: string(args)})
		}
		return scripted.Text("The child says: " + e2e.ToolOutputs(c)[0])
	}})
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all",
		"--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("make the file with a subagent")
	s.WaitFor("make the file asks: Allow bash to run this command?")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the child's command ran before anyone answered")
	}
	s.AllowOnce()
	screen := s.WaitFor("The child says: made it")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v\n%s", err, screen)
	}
	if !strings.Contains(screen, "make the file (runner)") {
		t.Errorf("the task call's block is not titled by its description and agent:\n%s", screen)
	}
	s.Quit()
}

// Three children run side by side in the interface, each a block under its
// task call that Ctrl+O expands to its steps; Escape stops them all at
// once: each task result says its child was cancelled, and each child's
// session is cancelled with its work so far (its read_file call) kept.
func TestEscapeStopsEveryChildInTheInterface(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# readme\n"), 0o644)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(c scripted.ChatRequest) scripted.Reply {
		switch {
		case e2e.IsChild(c) && !e2e.HasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"README.md"}`})
		case e2e.IsChild(c): // held until the request ends
			return scripted.Text("never finished").HoldAfterEvents(0, hold)
		case !e2e.HasToolResults(c):
			return scripted.ToolCalls(e2e.TaskCall("task_a", "look at a", "alpha"), e2e.TaskCall("task_b", "look at b", "beta"),
				e2e.TaskCall("task_c", "look at c", "gamma"))
		}
		return scripted.Text("The parent went on.")
	}})
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all", "--db", db})
	s.WaitFor("Ask about this repository")
	s.Send("research with three subagents")
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	// The parent's request, each child's first, and each child's second
	// (held): all three children are between steps.
	if err := srv.WaitRequests(ctx, 7); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "b", "c"} {
		s.WaitFor("↳ look at " + d + " · thinking")
	}
	screen := s.WaitFor("ctrl+o shows its 1 step")
	if strings.Contains(screen, "✓ read_file README.md") {
		t.Fatalf("a folded child shows its steps:\n%s", screen)
	}
	s.Keys("C-Up") // the middle task call, look at b
	s.Keys("C-o")
	screen = s.WaitFor("✓ read_file README.md")
	if strings.Count(screen, "✓ read_file README.md") != 1 {
		t.Errorf("Ctrl+O expanded more than the selected child:\n%s", screen)
	}

	s.Keys("Escape")
	screen = s.Idle()
	if strings.Contains(screen, "The parent went on.") {
		t.Errorf("the turn went on after Escape:\n%s", screen)
	}
	if n := len(srv.Requests()); n != 7 {
		t.Errorf("%d requests, want 7: nothing after Escape", n)
	}
	s.Quit()

	list := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"sessions", "list", "--db", db, "--json"}})
	var sessions []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list.Stdout), &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions list: %v %s", err, list.Stdout)
	}
	show := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", sessions[0].ID}})
	if strings.Count(show.Stdout, "  cancelled  ") != 3 {
		t.Fatalf("sessions show: want three cancelled subagents:\n%s", show.Stdout)
	}
	if !strings.Contains(show.Stdout, "did not finish (it was cancelled)") {
		t.Errorf("the task results do not say their child was cancelled:\n%s", show.Stdout)
	}
	for _, line := range strings.Split(show.Stdout, "\n") {
		if !strings.Contains(line, "look at ") || !strings.Contains(line, "cancelled") {
			continue
		}
		child := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", strings.Fields(line)[0]}})
		if !strings.Contains(child.Stdout, "read_file") || !strings.Contains(child.Stdout, "# readme") {
			t.Errorf("child %s lost its work:\n%s", strings.Fields(line)[0], child.Stdout)
		}
	}
}

// Started in plan mode, the interface refuses an edit (the model reads
// that plan mode is on), shows exit_plan_mode's plan as a question, and
// once the person approves it in auto mode, the edit goes through.
func TestPlanModeInTheInterfaceRefusesAnEditThenApprovesThePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"early.txt","content":"too early\n"}`}),
		scripted.ToolCalls(scripted.Call{ID: "p1", Name: "exit_plan_mode", Arguments: `{"plan":"1. Write planned.txt."}`}),
		scripted.ToolCalls(scripted.Call{ID: "w2", Name: "write_file", Arguments: `{"path":"planned.txt","content":"done\n"}`}),
		scripted.Text("Wrote planned.txt as planned."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all",
		"--permission-mode", "plan", "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("plan mode")
	s.Send("write the file")
	s.WaitFor("1. Write planned.txt.")
	if _, err := os.Stat(filepath.Join(dir, "early.txt")); err == nil {
		t.Fatal("write_file ran in plan mode")
	}
	s.WaitFor("↑/↓ choose")
	s.Keys("Down", "Enter") // Approve, and go on in auto mode
	screen := s.WaitFor("Wrote planned.txt as planned.")
	if _, err := os.Stat(filepath.Join(dir, "planned.txt")); err != nil {
		t.Errorf("the approved plan's edit did not run: %v\n%s", err, screen)
	}
	if !strings.Contains(s.Idle(), "auto mode") {
		t.Errorf("the status line does not show auto mode after the approval:\n%s", s.Screen())
	}
	reqs := srv.Requests()
	if got := e2e.ToolResults(reqs[1])["w1"]; !strings.Contains(got, "plan mode is on") {
		t.Errorf("the refused edit's result: %q", got)
	}
	s.Quit()
}
