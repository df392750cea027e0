package protocols

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestClaudeAgentSDKResumeAndContinue: query()'s resume (a session id)
// and continue (the directory's last session) go on with the stored
// session: the model gets the earlier turns, and the result names the
// same session.
func TestClaudeAgentSDKResumeAndContinue(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t, scripted.Text("Noted."), scripted.Text("Kumquat."), scripted.Text("Still kumquat."))
	dir := t.TempDir()
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0",
		"db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/resume.mjs")
	var ids []any
	for _, name := range []string{"first", "resume", "continue"} {
		r := sdkMessages(scenario(t, objs, name), "result")
		if len(r) != 1 || r[0]["is_error"] != false {
			t.Fatalf("%s: results %v\nstderr:\n%s", name, r, stderr)
		}
		ids = append(ids, r[0]["session_id"])
	}
	if ids[0] == nil || ids[1] != ids[0] || ids[2] != ids[0] {
		t.Errorf("session ids %v, want the first session's throughout", ids)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, req := range reqs[1:] {
		var texts []string
		for _, m := range req.Chat.Messages {
			texts = append(texts, m.Text())
		}
		if all := strings.Join(texts, "\n"); !strings.Contains(all, "remember the word kumquat") || !strings.Contains(all, "Noted.") {
			t.Errorf("request %d lacks the first turn: %q", i+2, all)
		}
	}
}
