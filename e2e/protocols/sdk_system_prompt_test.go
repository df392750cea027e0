package protocols

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// The SDK's systemPrompt option reaches the model: a string replaces
// agent's system prompt, and the claude_code preset's append follows
// agent's own (the SDK sends both in its initialize request only).
func TestClaudeAgentSDKSystemPrompt(t *testing.T) {
	t.Parallel()
	sdk := claudeSDK.module(t)
	srv := scripted.New(t, scripted.Text("Arr."), scripted.Text("Bien sûr."))
	dir := t.TempDir()
	extra := map[string]any{"base-url": srv.URL(), "model": "scripted-model", "max-retries": "0",
		"db": filepath.Join(t.TempDir(), "a.db")}
	env := []string{"SDK_MODULE=" + sdk, "AGENT_BIN=" + e2e.Agent(t), "AGENT_CWD=" + dir, jsonEnv("AGENT_EXTRA", extra)}
	objs, stderr := runNode(t, dir, env, "sdk/system.mjs")
	scenario(t, objs, "custom")
	scenario(t, objs, "append")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2\nstderr:\n%s", len(reqs), stderr)
	}
	system := func(i int) string {
		if m := reqs[i].Chat.Messages; len(m) > 0 && m[0].Role == "system" {
			return m[0].Text()
		}
		return ""
	}
	// The tools line stays: in pick mode the model must call pick_tools.
	if got := system(0); !strings.HasPrefix(got, "You are a pirate. Say arr.\n\nYour tools are listed in pick_tools' description") ||
		strings.Contains(got, "You are agent") {
		t.Errorf("the custom system prompt: the model got %q\nstderr:\n%s", got, stderr)
	}
	if got := system(1); !strings.HasSuffix(got, "\n\nAlways answer in French.") || len(got) < 200 {
		t.Errorf("the preset's append: the model got %q", got)
	}
}
