package protocols

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestClaudeAgentSDKResultCostsTheSubagents: the result's total_cost_usd
// counts the subagent's requests as well as the session's own, and
// modelUsage has them; usage is the session's loop alone, as the SDK
// defines it.
func TestClaudeAgentSDKResultCostsTheSubagents(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	// Three requests of 10 input and 5 output tokens each (the scripted
	// server's usage): the parent's task call, the child's answer, the
	// parent's answer.
	srv := scripted.New(t,
		scripted.ToolCalls(e2e.TaskCall("t1", "look around", "find the answer")),
		scripted.Text("found it"),
		scripted.Text("Done."),
	)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(`[profiles.s]
base_url = "`+srv.URL()+`"
model = "scripted-model"
[profiles.s.price]
input = 1000.0
output = 2000.0
`), 0o600); err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{"config": cfg, "profile": "s", "max-retries": "0", "tools": "all", "db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/cost.mjs")
	res := sdkMessages(scenario(t, objs, "cost"), "result")
	if len(res) != 1 || res[0]["result"] != "Done." {
		t.Fatalf("results %v\nstderr:\n%s", res, stderr)
	}
	perRequest := (10*1000.0 + 5*2000.0) / 1e6
	if got := res[0]["total_cost_usd"].(float64); math.Abs(got-3*perRequest) > 1e-12 {
		t.Errorf("total_cost_usd %v, want %v: the session's two requests and its subagent's one (without it: %v)", got, 3*perRequest, 2*perRequest)
	}
	if u := res[0]["usage"].(map[string]any); u["input_tokens"] != 20.0 || u["output_tokens"] != 10.0 {
		t.Errorf("usage %v, want the session's own two requests", u)
	}
	mu, _ := res[0]["modelUsage"].(map[string]any)["scripted-model"].(map[string]any)
	if mu == nil || mu["inputTokens"] != 30.0 || mu["outputTokens"] != 15.0 || math.Abs(mu["costUSD"].(float64)-3*perRequest) > 1e-12 {
		t.Errorf("modelUsage %v, want the three requests", res[0]["modelUsage"])
	}
}
