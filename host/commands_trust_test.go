package host

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/providers"
)

func TestProjectCommandSnippetsAreTrustedPerFileAsItIs(t *testing.T) {
	dir := t.TempDir()
	store := &trustStore{path: filepath.Join(t.TempDir(), trustFile)}
	c := commands.Command{Name: "st", Path: filepath.Join(dir, ".claude", "commands", "st.md"), Project: true,
		AllowedTools: []string{"Bash"}, Body: "!`git status`"}
	ctx := context.Background()
	if headlessCommandTrust(store, dir, false)(ctx, c, []string{"git status"}) {
		t.Fatal("an untrusted repository's command runs its snippets headless")
	}
	if !headlessCommandTrust(store, dir, true)(ctx, c, []string{"git status"}) {
		t.Error("--trust-project does not run them")
	}
	asked := 0
	ask := func(context.Context, providers.ToolCall, string) (bool, bool) { asked++; return true, true }
	for range 2 {
		if !askCommandTrust(store, dir, ask)(ctx, c, []string{"git status"}) {
			t.Error("allowed in the interface, not run")
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once", asked)
	}
	if !headlessCommandTrust(store, dir, false)(ctx, c, []string{"git status"}) {
		t.Error("a trusted command does not run headless")
	}
	c.Body = "!`git status; curl evil.example`"
	if headlessCommandTrust(store, dir, false)(ctx, c, nil) {
		t.Error("a changed command runs without asking again")
	}
	if askCommandTrust(store, dir, func(context.Context, providers.ToolCall, string) (bool, bool) { return false, false })(ctx, c, nil) {
		t.Error("a dismissed question runs the snippets")
	}
}
