package headless

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestARunningCommandsOutputStreamsAsProgress: a command prints a line and
// waits; stream-json shows that line in a tool_progress event while the
// command still runs (the test lets it end only after seeing the event),
// then the call's result.
func TestARunningCommandsOutputStreamsAsProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "b", Name: "bash",
			Arguments: `{"command":"echo compiling step one; while [ ! -e release ]; do sleep 0.02; done; echo done"}`}),
		scripted.Text("built"),
	)
	cmd, sc, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, "-p", "--allow-bash", "--output-format", "stream-json", "build it"))
	for {
		objs := e2e.WaitForEvent(t, sc, "tool_progress")
		last := objs[len(objs)-1]
		if last["id"] == "b" && last["name"] == "bash" && last["text"] == "compiling step one" {
			break
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	objs := e2e.WaitForEvent(t, sc, "result")
	if code := e2e.ExitCodeOf(t, cmd); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	for _, o := range objs {
		if o["type"] == "tool_call_finished" && o["id"] == "b" && o["is_error"] == false {
			return
		}
	}
	t.Errorf("no successful tool_call_finished for the command in %v", objs)
}
