package protocols

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestClaudeAgentSDKRewindFiles: with enableFileCheckpointing and
// replay-user-messages the SDK learns the prompt's uuid from the replay;
// its turn edits one file with edit_file and another with sed through
// bash; rewindFiles(uuid, {dryRun: true}) says what would change and
// changes nothing, rewindFiles(uuid) restores both (the commands' change
// too), an unknown uuid cannot be rewound, and without checkpointing
// nothing can.
func TestClaudeAgentSDKRewindFiles(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`},
			scripted.Call{ID: "b1", Name: "bash", Arguments: `{"command":"sed -i 's/bravo/BRAVO/' b.txt"}`},
		),
		scripted.Text("Changed both."),
		scripted.Text("Hello."),
	)
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "a.txt", "alpha\n")
	e2e.WriteFile(t, dir, "b.txt", "bravo\nbravo two\n")
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0", "tools": "all",
		"allow-bash": nil, "db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/rewind.mjs")

	rw := scenario(t, objs, "rewind")
	if rw["uuid"] != rw["sent"] {
		t.Errorf("the replay's uuid %v, want the one sent, %v; stderr:\n%s", rw["uuid"], rw["sent"], stderr)
	}
	var replay map[string]any
	for _, m := range sdkMessages(rw, "user") {
		if m["isReplay"] == true {
			replay = m
		}
	}
	if replay == nil || replay["session_id"] == "" || replay["parent_tool_use_id"] != nil ||
		replay["message"].(map[string]any)["content"] != "change them" {
		t.Errorf("the replay %v", replay)
	}
	if r := sdkMessages(rw, "result"); len(r) != 1 || r[0]["result"] != "Changed both." {
		t.Fatalf("the turn's result %v; stderr:\n%s", r, stderr)
	}
	files := []any{filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")}
	want := map[string]any{"canRewind": true, "filesChanged": files, "insertions": 3.0, "deletions": 3.0}
	if !reflect.DeepEqual(rw["dry"], want) {
		t.Errorf("rewindFiles dry run: %v, want %v", rw["dry"], want)
	}
	if after := rw["afterDry"].(map[string]any); after["a.txt"] != "ALPHA\n" || after["b.txt"] != "BRAVO\nBRAVO two\n" {
		t.Errorf("the dry run changed files: %v", after)
	}
	if !reflect.DeepEqual(rw["done"], want) {
		t.Errorf("rewindFiles: %v, want %v", rw["done"], want)
	}
	for name, content := range map[string]string{"a.txt": "alpha\n", "b.txt": "bravo\nbravo two\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
			t.Errorf("after rewindFiles %s = %q, want %q", name, got, content)
		}
	}
	if u := rw["unknown"].(map[string]any); u["canRewind"] != false || u["error"] == nil {
		t.Errorf("rewindFiles of an unknown uuid: %v", u)
	}
	if off := scenario(t, objs, "off")["off"].(map[string]any); off["canRewind"] != false || off["error"] == nil {
		t.Errorf("rewindFiles without enableFileCheckpointing: %v", off)
	}
}
