package protocols

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// toolResult is the content of a scenario's tool_result for call id, and
// whether it is an error.
func toolResult(o map[string]any, id string) (string, bool) {
	for _, m := range sdkMessages(o, "user") {
		for _, c := range m["message"].(map[string]any)["content"].([]any) {
			if b := c.(map[string]any); b["type"] == "tool_result" && b["tool_use_id"] == id {
				s, _ := b["content"].(string)
				return s, b["is_error"] == true
			}
		}
	}
	return "", false
}

// TestClaudeAgentSDKCanUseToolUpdatedInput: the SDK's canUseTool answers
// allow with an updatedInput that changes a bash call's command; the call
// runs with the host's command, which the deny rules still judge.
func TestClaudeAgentSDKCanUseToolUpdatedInput(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo model > model.txt"}`}),
		scripted.Text("Ran it."),
		scripted.ToolCalls(scripted.Call{ID: "b2", Name: "bash", Arguments: `{"command":"echo hi"}`}),
		scripted.Text("Tried."),
	)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0", "tools": "all",
		"db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/updated.mjs")

	rewrite := scenario(t, objs, "rewrite")
	if asked := rewrite["asked"].([]any); len(asked) != 1 || asked[0].(map[string]any)["input"].(map[string]any)["command"] != "echo model > model.txt" {
		t.Errorf("canUseTool was asked %v, want once about the model's command", asked)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "host.txt")); err != nil || string(data) != "host\n" {
		t.Errorf("the host's command: host.txt %q, %v\nstderr:\n%s", data, err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.txt")); err == nil {
		t.Error("the model's command ran too")
	}
	if res, isErr := toolResult(rewrite, "b1"); isErr {
		t.Errorf("the rewritten call failed: %q", res)
	}
	if r := sdkMessages(rewrite, "result"); len(r) != 1 || r[0]["result"] != "Ran it." {
		t.Errorf("rewrite: result %v", r)
	}

	rule := scenario(t, objs, "rule")
	if asked := rule["asked"].([]any); len(asked) != 1 {
		t.Errorf("canUseTool was asked %d times, want once", len(asked))
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Errorf("the host's rm ran past the deny rule: %v", err)
	}
	if res, isErr := toolResult(rule, "b2"); !isErr || !strings.Contains(res, "rm") {
		t.Errorf("the call with the denied command: result %q (error %v), want the rule's refusal", res, isErr)
	}
}
