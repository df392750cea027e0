package protocols

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestACPCancelledPermissionCancelsThePrompt drives `agent acp` through the
// official ACP client SDK: a bash call's session/request_permission
// answered with the outcome "cancelled" denies the call and ends the
// prompt with stopReason "cancelled" (no request goes to the model after
// it); so does a session/cancel sent while the request is pending, which
// the client then answers "cancelled" as ACP requires.
func TestACPCancelledPermissionCancelsThePrompt(t *testing.T) {
	t.Parallel()
	sdk := acpClient.module(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "bash", Arguments: `{"command":"echo one > one.txt"}`}),
		scripted.ToolCalls(scripted.Call{ID: "c2", Name: "bash", Arguments: `{"command":"echo two > two.txt"}`}),
		scripted.Text("must not be requested"),
	)
	dir := t.TempDir()
	env := []string{"ACP_SDK=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir,
		jsonEnv("AGENT_ARGS", append([]string{"acp"}, e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "--tools", "all")...)),
		jsonEnv("AGENT_ANSWERS", []string{"cancelled", "session/cancel"})}
	objs, stderr := runNode(t, dir, env, "acp/client.mjs", "cancel")
	for _, o := range objs {
		if o["step"] == "error" {
			t.Fatalf("client error %v; stderr:\n%s", o, stderr)
		}
	}
	perms := 0
	for _, o := range objs {
		if o["step"] == "permission" {
			perms++
		}
	}
	if perms != 2 {
		t.Errorf("%d permission requests, want one a prompt", perms)
	}
	for _, name := range []string{"run", "again"} {
		s := step(t, objs, name)
		if s["stopReason"] != "cancelled" {
			t.Errorf("%s: stopReason %v, want cancelled", name, s["stopReason"])
		}
		failed := false
		for _, u := range updatesOf(s, "tool_call_update") {
			if u["status"] == "completed" {
				t.Errorf("%s: a cancelled call completed: %v", name, u)
			}
			failed = failed || u["status"] == "failed"
		}
		if !failed { // the editor would show the call pending for good
			t.Errorf("%s: the cancelled call got no failed tool_call_update: %v", name, s["updates"])
		}
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the command writing %s ran after its permission request was cancelled", f)
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests to the model, want 2: a cancelled prompt sends nothing after its call", n)
	}
	if e := step(t, objs, "exit"); e["code"] != 0.0 {
		t.Errorf("agent exit %v; stderr:\n%s", e, stderr)
	}
}
