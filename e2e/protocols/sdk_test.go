package protocols

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// scenario returns the object of objs printed for scenario name.
func scenario(t *testing.T, objs []map[string]any, name string) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o["scenario"] == name {
			if e, ok := o["error"]; ok {
				t.Errorf("%s: the SDK failed: %v", name, e)
			}
			return o
		}
	}
	t.Fatalf("no scenario %q in %v", name, objs)
	return nil
}

// sdkMessages returns a scenario's messages of a type.
func sdkMessages(o map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range o["messages"].([]any) {
		if mm := m.(map[string]any); mm["type"] == typ {
			out = append(out, mm)
		}
	}
	return out
}

// assistantText joins the text blocks of a scenario's assistant messages.
func assistantText(o map[string]any) string {
	var b strings.Builder
	for _, m := range sdkMessages(o, "assistant") {
		for _, c := range m["message"].(map[string]any)["content"].([]any) {
			if block := c.(map[string]any); block["type"] == "text" {
				b.WriteString(block["text"].(string))
			}
		}
	}
	return b.String()
}

// TestClaudeAgentSDK drives agent through the Claude Agent SDK's query():
// a string prompt, streaming input with two turns, interrupt,
// setPermissionMode, and canUseTool denying a bash call.
func TestClaudeAgentSDK(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.Text("Hello from agent."),
		scripted.Text("First answer."),
		scripted.Text("Second answer."),
		scripted.Text("This answer goes on and on").WithPieceSize(4).HoldAfterEvents(2, hold),
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"made.txt","content":"made\n"}`}),
		scripted.Text("Wrote it."),
		scripted.ToolCalls(scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo x > x.txt"}`}),
		scripted.Text("Could not run it."),
	)
	dir := t.TempDir()
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0", "tools": "all",
		"db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/query.mjs")

	str := scenario(t, objs, "string")
	inits := sdkMessages(str, "system")
	results := sdkMessages(str, "result")
	if len(inits) != 1 || inits[0]["subtype"] != "init" || inits[0]["cwd"] != dir || len(results) != 1 ||
		results[0]["subtype"] != "success" || results[0]["result"] != "Hello from agent." || results[0]["session_id"] != inits[0]["session_id"] {
		t.Errorf("string prompt: %v\nstderr:\n%s", str, stderr)
	}
	// The SDK's PermissionMode type: default, acceptEdits, bypassPermissions, plan, dontAsk, auto.
	if len(inits) == 1 && inits[0]["permissionMode"] != "default" {
		t.Errorf("system init's permissionMode %v, want the SDK's name default", inits[0]["permissionMode"])
	}
	if got := assistantText(str); got != "Hello from agent." {
		t.Errorf("string prompt's assistant text %q", got)
	}

	stream := scenario(t, objs, "stream")
	results = sdkMessages(stream, "result")
	if len(results) != 2 || results[0]["result"] != "First answer." || results[1]["result"] != "Second answer." ||
		results[0]["session_id"] != results[1]["session_id"] {
		t.Errorf("streaming input: results %v", results)
	}

	intr := scenario(t, objs, "interrupt")
	results = sdkMessages(intr, "result")
	if len(results) != 1 || results[0]["is_error"] != true || results[0]["subtype"] != "error_during_execution" {
		t.Errorf("interrupt: results %v", results)
	}
	if len(sdkMessages(intr, "stream_event")) == 0 {
		t.Error("interrupt: no stream_event with includePartialMessages")
	}

	mode := scenario(t, objs, "mode")
	if asked := scenario(t, objs, "mode-asked")["asked"].([]any); len(asked) != 0 {
		t.Errorf("after setPermissionMode(acceptEdits) canUseTool was asked about %v", asked)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(data) != "made\n" {
		t.Errorf("the edit in acceptEdits mode: %q, %v (%v)", data, err, mode)
	}

	deny := scenario(t, objs, "deny")
	if asked := scenario(t, objs, "deny-asked")["asked"].([]any); len(asked) != 1 || asked[0] != "bash" {
		t.Errorf("canUseTool asked about %v, want bash", asked)
	}
	var denied string
	for _, m := range sdkMessages(deny, "user") {
		for _, c := range m["message"].(map[string]any)["content"].([]any) {
			if b := c.(map[string]any); b["type"] == "tool_result" && b["tool_use_id"] == "b1" && b["is_error"] == true {
				denied, _ = b["content"].(string)
			}
		}
	}
	if !strings.Contains(denied, "no shell for you") {
		t.Errorf("the denied call's result %q should carry canUseTool's message", denied)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("the denied command ran")
	}
	if r := sdkMessages(deny, "result"); len(r) != 1 || r[0]["result"] != "Could not run it." {
		t.Errorf("deny: result %v", r)
	}
}
