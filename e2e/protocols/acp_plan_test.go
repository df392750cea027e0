package protocols

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestACPPlanMode drives `agent acp` through the official ACP client SDK:
// session/set_mode "plan" refuses an edit, a todo list becomes a plan
// update, exit_plan_mode's plan is a permission request whose
// allow_always leaves plan mode for auto (a current_mode_update), and the
// next prompt's edit then runs without a question.
func TestACPPlanMode(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"early.txt","content":"no\n"}`}),
		scripted.ToolCalls(scripted.Call{ID: "t1", Name: "todo_write",
			Arguments: `{"todos":[{"content":"write done.txt","status":"pending"}]}`}),
		scripted.ToolCalls(scripted.Call{ID: "p1", Name: "exit_plan_mode", Arguments: `{"plan":"1. Write done.txt."}`}),
		scripted.Text("Planned."),
		scripted.ToolCalls(scripted.Call{ID: "w2", Name: "write_file", Arguments: `{"path":"done.txt","content":"done\n"}`}),
		scripted.Text("Done."),
	)
	dir := t.TempDir()
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir,
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "--tools", "all")...)),
		jsonEnv("AGENT_ANSWERS", []string{"allow_always"})}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "plan")
	for _, o := range objs {
		if o["step"] == "error" {
			t.Fatalf("client error %v; stderr:\n%s", o, stderr)
		}
	}
	plan := step(t, objs, "plan")
	if plan["stopReason"] != "end_turn" {
		t.Errorf("plan: stop %v", plan["stopReason"])
	}
	if _, err := os.Stat(filepath.Join(dir, "early.txt")); err == nil {
		t.Error("an edit ran in plan mode")
	}
	if p := updatesOf(plan, "plan"); len(p) != 1 || len(p[0]["entries"].([]any)) != 1 {
		t.Errorf("plan updates %v, want the todo list as one plan", p)
	}
	var perms []map[string]any
	for _, o := range objs {
		if o["step"] == "permission" {
			perms = append(perms, o)
		}
	}
	if len(perms) != 1 || !strings.Contains(toJSON(perms[0]["toolCall"]), "Write done.txt.") {
		t.Fatalf("permission requests %v, want one carrying the plan", perms)
	}
	if m := updatesOf(plan, "current_mode_update"); len(m) != 1 || m[0]["currentModeId"] != "auto" {
		t.Errorf("mode updates %v, want one to auto", m)
	}
	if step(t, objs, "go")["stopReason"] != "end_turn" {
		t.Errorf("go: %v", step(t, objs, "go"))
	}
	if data, err := os.ReadFile(filepath.Join(dir, "done.txt")); err != nil || string(data) != "done\n" {
		t.Errorf("the edit after the plan: %q, %v", data, err)
	}
}

// toJSON is v as JSON text, for a test to look into.
func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
