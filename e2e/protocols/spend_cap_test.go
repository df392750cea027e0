package protocols

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestClaudeAgentSDKMaxBudgetUsd: the official SDK's maxBudgetUsd reaches
// agent as --max-budget-usd, and a run past it ends with the result
// subtype error_max_budget_usd, the partial answer and the spend.
func TestClaudeAgentSDKMaxBudgetUsd(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t, e2e.SpendCapTask()...)
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	extra := map[string]any{"config": cfg, "profile": "s", "max-retries": "0", "tools": "all", "db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, "AGENT_BUDGET=" + e2e.SpendCapUSD,
		jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/budget.mjs")
	res := sdkMessages(scenario(t, objs, "budget"), "result")
	if len(res) != 1 {
		t.Fatalf("results %v\nstderr:\n%s", res, stderr)
	}
	r := res[0]
	if r["subtype"] != "error_max_budget_usd" || r["is_error"] != true || !strings.Contains(r["result"].(string), e2e.SpendCapSecond) {
		t.Errorf("result %v", r)
	}
	if errs, _ := r["errors"].([]any); len(errs) != 1 || !strings.Contains(errs[0].(string), "spend cap of $0.0010 was reached ($0.0012") {
		t.Errorf("errors %v", r["errors"])
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestACPSpendCap: in `agent acp` a prompt past the cap ends with the
// stop reason max_turn_requests (ACP has none for a budget), after a
// message chunk saying why.
func TestACPSpendCap(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	srv := scripted.New(t, e2e.SpendCapTask()...)
	cfg := e2e.SpendCapConfig(t, srv.URL(), "")
	dir := t.TempDir()
	// The client's mcp scenario without servers: one prompt in a new
	// session.
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, "AGENT_MCP=[]",
		jsonEnv("AGENT_ARGS", []string{"acp", "--config", cfg, "--db", filepath.Join(t.TempDir(), "a.db"), "--max-retries", "0",
			"--tools", "all", "--permission-mode", "auto", "--max-budget-usd", e2e.SpendCapUSD})}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "mcp")
	add := step(t, objs, "add")
	if add["stopReason"] != "max_turn_requests" {
		t.Fatalf("stop reason %v; stderr:\n%s", add["stopReason"], stderr)
	}
	text := chunkText(updatesOf(add, "agent_message_chunk"))
	if !strings.Contains(text, e2e.SpendCapFirst) || !strings.HasSuffix(strings.TrimSpace(text), "spent).") ||
		!strings.Contains(text, e2e.SpendCapReached) {
		t.Errorf("the message chunks %q, want the partial answer, then why it stopped", text)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
