package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestSpendCapStopsTheRun: a cap of $0.001 against a priced model stops a
// three-step task before the request that would start past it: exit code
// 4, the partial answer printed with the line saying the cap was reached
// and the spend; stream-json's result has the SDK's subtype; the
// session's record says why.
func TestSpendCapStopsTheRun(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, e2e.SpendCapTask()...)
			cfg := e2e.SpendCapConfig(t, srv.URL(), "")
			db := filepath.Join(t.TempDir(), "a.db")
			dir := t.TempDir()
			res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", db, "--tools", "all",
				"-p", "--output-format", format, "--max-budget-usd", e2e.SpendCapUSD, "list the files three times")})
			if res.Code != 4 {
				t.Fatalf("exit %d, want 4\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2: the one that crossed the cap is the last", n)
			}
			if format == "text" {
				want := e2e.SpendCapFirst + "\n\n" + e2e.SpendCapSecond + "\n\n" + e2e.SpendCapReached
				if !strings.HasPrefix(res.Stdout, want) {
					t.Errorf("stdout %q, want it to begin %q", res.Stdout, want)
				}
				return
			}
			objs := e2e.JSONLines(t, res.Stdout)
			result := objs[len(objs)-1]
			if result["type"] != "result" || result["subtype"] != "error_max_budget_usd" || result["stop_reason"] != "max_budget" ||
				!strings.Contains(result["answer"].(string), e2e.SpendCapReached) {
				t.Errorf("result %v", result)
			}
			if format != "stream-json" {
				return
			}
			show := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", objs[0]["session_id"].(string)}})
			if !strings.Contains(show.Stdout, "max_budget") || !strings.Contains(show.Stdout, "stopped at its spend cap") {
				t.Errorf("sessions show does not say the session stopped at its cap:\n%s", show.Stdout)
			}
		})
	}
}

// TestTokenCapStopsAnUnpricedModel: a model without a price is capped by
// --max-tokens-total (input and output tokens); a dollar cap on it without
// a token cap is a usage error saying what to set.
func TestTokenCapStopsAnUnpricedModel(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, e2e.SpendCapTask()...)
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "all", "-p", "--max-tokens-total", "1500",
		"list the files three times")})
	if res.Code != 4 || !strings.Contains(res.Stdout, "Stopped: the session's token cap of 1500 tokens was reached (2000 tokens spent).") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}

	res = e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "--max-budget-usd", "1", "hi")})
	if res.Code != 2 || !strings.Contains(res.Stderr, "needs the price of model scripted-model") || !strings.Contains(res.Stderr, "--max-tokens-total") {
		t.Errorf("a dollar cap on an unpriced model: exit %d, stderr %q; want 2 and what to set", res.Code, res.Stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests in all, want the token-capped run's 2", n)
	}
}

// TestSubagentsOwnCapStopsIt: an agent definition's max_budget_usd stops
// its subagent, whose task call returns an error result saying so; the
// parent goes on to its answer.
func TestSubagentsOwnCapStopsIt(t *testing.T) {
	t.Parallel()
	task := e2e.TaskCall("t1", "list twice", "List the files, twice.")
	task.Arguments = strings.TrimSuffix(task.Arguments, "}") + `,"agent":"lister"}`
	child := e2e.SpendCapTask()
	srv := scripted.New(t, scripted.ToolCalls(task), child[0], child[1], scripted.Text("The parent goes on."))
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	agents := filepath.Join(dir, ".agent", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: lister\ndescription: Lists files.\ntools: list_files\nmax_budget_usd: 0.001\n---\nYou list files.\n"
	if err := os.WriteFile(filepath.Join(agents, "lister.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--config", cfg, "--db", filepath.Join(t.TempDir(), "a.db"),
		"--tools", "all", "-p", "--output-format", "stream-json", "delegate the listing")})
	if res.Code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	var finished map[string]any
	for _, o := range e2e.JSONLines(t, res.Stdout) {
		if o["type"] == "tool_call_finished" && o["id"] == "t1" {
			finished = o
		}
		if o["type"] == "result" && o["answer"] != "The parent goes on." {
			t.Errorf("result %v", o)
		}
	}
	if finished == nil || finished["is_error"] != true ||
		!strings.Contains(finished["content"].(string), "the subagent's spend cap of $0.0010 was reached ($0.0012") {
		t.Errorf("the task's result %v", finished)
	}
}
