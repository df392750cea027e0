package protocols

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestSubagentsArePricedAtTheirOwnModelInBothStreams: a subagent that runs
// on another model (an agent definition's model) costs its own model's
// price, in `-p --output-format stream-json`'s cost_usd and
// session_cost_usd as in the Claude Agent SDK protocol's total_cost_usd,
// and the two front-ends give the same figure for the same turn.
func TestSubagentsArePricedAtTheirOwnModelInBothStreams(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	script := func() *scripted.Server {
		// Three requests of 10 input and 5 output tokens each: the
		// parent's task call, the child's answer (on gpt-4o-mini), the
		// parent's answer.
		args, _ := json.Marshal(map[string]string{"description": "look", "prompt": "find it", "agent": "cheap"})
		return scripted.New(t,
			scripted.ToolCalls(scripted.Call{ID: "t1", Name: "task", Arguments: string(args)}),
			scripted.Text("found it"),
			scripted.Text("Done."),
		)
	}
	project := func() string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".agent", "agents"), 0o755); err != nil {
			t.Fatal(err)
		}
		e2e.WriteFile(t, dir, ".agent/agents/cheap.md", "---\nname: cheap\ndescription: Looks around cheaply\nmodel: gpt-4o-mini\n---\nYou look around.\n")
		return dir
	}
	config := func(url string) string {
		cfg := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(cfg, []byte("[profiles.s]\nbase_url = \""+url+"\"\nmodel = \"scripted-model\"\n[profiles.s.price]\ninput = 1000.0\noutput = 2000.0\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	parent := 2 * (10*1000.0 + 5*2000.0) / 1e6
	child := (10*0.15 + 5*0.60) / 1e6 // gpt-4o-mini's list price
	want := parent + child

	srv := script()
	dir := project()
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"-p", "delegate it", "--output-format", "stream-json", "--config", config(srv.URL()),
		"--profile", "s", "--tools", "all", "--max-retries", "0", "--db", filepath.Join(t.TempDir(), "a.db")}})
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["type"] != "result" {
		t.Fatalf("exit %d, last line %q; stderr %s", res.Code, lines[len(lines)-1], res.Stderr)
	}
	if len(srv.Requests()) != 3 || srv.Requests()[1].Chat.Model != "gpt-4o-mini" {
		t.Fatalf("%d requests; the child's should ask gpt-4o-mini; stderr %s", len(srv.Requests()), res.Stderr)
	}
	printed, _ := last["cost_usd"].(float64)
	if math.Abs(printed-want) > 1e-12 || last["session_cost_usd"] != last["cost_usd"] {
		t.Errorf("-p: cost_usd %v, session_cost_usd %v, want %v (at the parent's price the child would make it %v)",
			last["cost_usd"], last["session_cost_usd"], want, 1.5*parent)
	}

	srv = script()
	dir = project()
	extra := map[string]any{"config": config(srv.URL()), "profile": "s", "max-retries": "0", "tools": "all", "db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/cost.mjs")
	results := sdkMessages(scenario(t, objs, "cost"), "result")
	if len(results) != 1 {
		t.Fatalf("results %v\nstderr:\n%s", results, stderr)
	}
	if total, _ := results[0]["total_cost_usd"].(float64); math.Abs(total-printed) > 1e-12 {
		t.Errorf("the SDK protocol's total_cost_usd %v, -p's cost_usd %v: the same turn, two prices", total, printed)
	}
}
