package headless

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A cap far below one request's cost: the first request goes (nothing was
// spent), the second is never sent; exit 4, the partial text printed, the
// stop line.
func TestATinySpendCapIsWrittenWithItsDigits(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, e2e.SpendCapTask()...)
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "--tools", "all",
		"-p", "--output-format", "stream-json", "--max-budget-usd", "0.000001", "list the files three times")})
	if res.Code != 4 {
		t.Fatalf("exit %d, want 4\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	result := objs[len(objs)-1]
	if result["subtype"] != "error_max_budget_usd" || !strings.Contains(result["answer"].(string), e2e.SpendCapFirst) ||
		!strings.Contains(result["answer"].(string), "Stopped: the session's spend cap of $0.000001") {
		t.Errorf("result %v", result)
	}
	list := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "list", "--json"}})
	if !strings.Contains(list.Stdout, `"status": "max_budget"`) {
		t.Errorf("sessions list:\n%s", list.Stdout)
	}
}

// Three task calls in one step, each subagent a two-request task, under a
// cap that allows two requests: every subagent's first request goes (none
// has crossed the cap when they are checked), none's second; the run ends
// with exit 4, the parent sending nothing after its tasks, and the spend
// overshoots by at most one request per subagent, as the README says.
func TestSpendCapWithParallelSubagents(t *testing.T) {
	t.Parallel()
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: func(c scripted.ChatRequest) scripted.Reply {
		switch {
		case e2e.IsChild(c) && !e2e.HasToolResults(c):
			return scripted.ToolCalls(scripted.Call{ID: "ls", Name: "list_files", Arguments: `{}`}).WithUsage(1000, 0)
		case e2e.IsChild(c):
			return scripted.Text("child done").WithUsage(1000, 0)
		case !e2e.HasToolResults(c):
			return scripted.ToolCalls(e2e.TaskCall("t1", "one", "List the files."), e2e.TaskCall("t2", "two", "List the files."),
				e2e.TaskCall("t3", "three", "List the files.")).WithUsage(1000, 0)
		default:
			return scripted.Text("parent done").WithUsage(1000, 0)
		}
	}})
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "--tools", "all",
		"-p", "--output-format", "stream-json", "--max-budget-usd", e2e.SpendCapUSD, "delegate three listings")})
	if res.Code != 4 {
		t.Errorf("exit %d, want 4\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	children, parents := 0, 0
	for _, r := range srv.Requests() {
		if e2e.IsChild(r.Chat) {
			children++
		} else {
			parents++
		}
	}
	if children < 1 || children > 3 || parents != 1 {
		t.Errorf("%d subagent requests and %d of the parent; want at most 3 (one each) and 1", children, parents)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	result := objs[len(objs)-1]
	if result["subtype"] != "error_max_budget_usd" {
		t.Errorf("result %v", result)
	}
	if cost, _ := result["session_cost_usd"].(float64); cost > 0.0024+1e-9 {
		t.Errorf("spent $%g, more than one request per subagent past the parent's", cost)
	}
}

// A resumed session (-c) starts at $0 for the cap: the three-step task,
// continued, stops as a new one would, exit 4, status max_budget.
func TestSpendCapOnAResumedSession(t *testing.T) {
	t.Parallel()
	replies := append([]scripted.Reply{scripted.Text("first run").WithUsage(1000, 0)}, e2e.SpendCapTask()...)
	srv := scripted.New(t, replies...)
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "--tools", "all",
		"-p", "--max-budget-usd", e2e.SpendCapUSD, "hello")})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "--tools", "all",
		"-p", "-c", "--max-budget-usd", e2e.SpendCapUSD, "list the files three times")})
	if res.Code != 4 || !strings.HasPrefix(res.Stdout, e2e.SpendCapFirst+"\n\n"+e2e.SpendCapSecond+"\n\n"+e2e.SpendCapReached) {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	list := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "list", "--json"}})
	if !strings.Contains(list.Stdout, `"status": "max_budget"`) {
		t.Errorf("sessions list:\n%s", list.Stdout)
	}
}
