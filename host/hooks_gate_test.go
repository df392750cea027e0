package host

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// A PreToolUse hook that gave no answer denies the call headless; the
// model reads why, but not the hook's command line, which may hold a
// token the person wrote into their settings.
func TestAFailedHooksCommandDoesNotReachTheModel(t *testing.T) {
	dir := t.TempDir()
	hs := []hooks.Hook{{Event: hooks.PreToolUse, Command: `./guard.sh --token=ghp_secretsecretsecret`, Source: "test"}}
	var warned []string
	h := &hookSet{all: hs, dir: dir, headless: true, warn: func(s string) { warned = append(warned, s) },
		runner: &hooks.Runner{Hooks: hs, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}}
	d := h.gate(context.Background(), loop.GateCall{Call: providers.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}})
	if d.Verdict != loop.GateDeny {
		t.Fatalf("verdict %v, want a denial", d.Verdict)
	}
	if strings.Contains(d.Reason, "ghp_secret") {
		t.Errorf("the model reads the hook's command: %q", d.Reason)
	}
	if !strings.Contains(strings.Join(warned, "\n"), "guard.sh") {
		t.Errorf("the person was not told which hook failed: %q", warned)
	}
}

// Exit 2 of a hook whose event cannot be blocked (PreCompact, SessionStart,
// SessionEnd, Notification) shows its stderr to the person, as Claude Code
// does; it was dropped.
func TestExitTwoOfAnUnblockableEventIsShown(t *testing.T) {
	dir := t.TempDir()
	hs := []hooks.Hook{{Event: hooks.PreCompact, Command: `echo "backup the transcript first" >&2; exit 2`, Source: "test"}}
	var warned []string
	h := &hookSet{all: hs, dir: dir, warn: func(s string) { warned = append(warned, s) },
		runner: &hooks.Runner{Hooks: hs, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}}
	h.compactFunc()(context.Background(), loop.CompactStart{Session: "s1"})
	if !strings.Contains(strings.Join(warned, "\n"), "backup the transcript first") {
		t.Errorf("warned %q, want the hook's stderr", warned)
	}
}
