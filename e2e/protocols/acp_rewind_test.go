package protocols

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestACPRewind drives `agent acp` through the official ACP client: a
// prompt whose turn edits a file, another; _agent/checkpoints lists both;
// _agent/rewind of the code to the first as a dry run changes nothing,
// then restores the file; a checkpoint that does not exist is invalid
// params; a conversation rewind answers a fork that session/load opens,
// holding the first prompt only.
func TestACPRewind(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"notes.txt","old_string":"draft","new_string":"final"}`}),
		scripted.Text("Edited."),
		scripted.Text("Nothing to do."),
	)
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "notes.txt", "draft\nsecond line\n")
	db := filepath.Join(t.TempDir(), "a.db")
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, "AGENT_FILE=notes.txt",
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", db, "--permission-mode", "auto")...))}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "rewind")
	for _, o := range objs {
		if o["step"] == "error" {
			t.Fatalf("client error %v; stderr:\n%s", o, stderr)
		}
	}
	if e := step(t, objs, "exit"); e["code"] != 0.0 {
		t.Errorf("agent exit %v; stderr:\n%s", e, stderr)
	}
	if s := step(t, objs, "edit"); s["stopReason"] != "end_turn" {
		t.Fatalf("the edit's prompt: %v; stderr:\n%s", s, stderr)
	}

	list := step(t, objs, "checkpoints")["response"].(map[string]any)["checkpoints"].([]any)
	if len(list) != 2 {
		t.Fatalf("_agent/checkpoints: %v", list)
	}
	first := list[0].(map[string]any)
	if first["n"] != 1.0 || first["prompt"] != "edit" || strings.Join(toStrings(first["changed"]), ",") != "notes.txt" {
		t.Errorf("the first checkpoint: %v", first)
	}

	dry := step(t, objs, "dry")
	res := dry["response"].(map[string]any)
	changes := res["changes"].([]any)
	if res["dryRun"] != true || len(changes) != 1 || len(res["restored"].([]any)) != 0 || dry["file"] != "final\nsecond line\n" {
		t.Errorf("dry run: %v", dry)
	}
	if c := changes[0].(map[string]any); c["path"] != "notes.txt" || c["action"] != "modify" || c["added"] != 1.0 || c["removed"] != 1.0 {
		t.Errorf("the dry run's change: %v", c)
	}
	code := step(t, objs, "code")
	res = code["response"].(map[string]any)
	restored := res["restored"].([]any)
	if code["file"] != "draft\nsecond line\n" || len(restored) != 1 || restored[0].(map[string]any)["path"] != "notes.txt" ||
		res["forkedSessionId"] != nil || res["checkpoint"].(map[string]any)["n"] != 1.0 {
		t.Errorf("rewind of the code: %v", code)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != "draft\nsecond line\n" {
		t.Errorf("notes.txt after the rewind: %q", got)
	}
	if e, _ := step(t, objs, "none")["error"].(map[string]any); e == nil || e["code"] != -32602.0 {
		t.Errorf("a checkpoint that does not exist: %v", e)
	}

	conv := step(t, objs, "conversation")["response"].(map[string]any)
	fork, _ := conv["forkedSessionId"].(string)
	if fork == "" || fork == conv["sessionId"] || len(conv["restored"].([]any)) != 0 {
		t.Fatalf("conversation rewind: %v", conv)
	}
	load := step(t, objs, "load")
	var said []string
	for _, u := range updatesOf(load, "user_message_chunk") {
		said = append(said, u["content"].(map[string]any)["text"].(string))
	}
	if strings.Join(said, "|") != "edit" {
		t.Errorf("the fork replays the prompts %q, want the first only", said)
	}
}
