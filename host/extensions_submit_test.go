package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// A UserPromptSubmit hook that blocks a prompt blocks it before anything
// of it runs: a custom command's !`command` snippets do not run.
func TestABlockedPromptRunsNoSnippet(t *testing.T) {
	dir := t.TempDir()
	hs := []hooks.Hook{{Event: hooks.UserPromptSubmit, Command: `echo "no deploys today" >&2; exit 2`, Source: "test"}}
	started := make(chan struct{})
	close(started)
	h := &hookSet{all: hs, dir: dir, warn: func(string) {}, started: started,
		runner: &hooks.Runner{Hooks: hs, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}}
	var ran []string
	a := &agent{hooks: h, commands: &commands.Set{
		Commands: []commands.Command{{Name: "deploy", AllowedTools: []string{"Bash"}, Body: "Deploy: !`./deploy.sh`"}},
		Run: func(_ context.Context, c string) (string, error) {
			ran = append(ran, c)
			return "deployed", nil
		},
	}}
	s := a.submit(context.Background(), "s1", turn.Text("/deploy"))
	if s.Blocked == "" {
		t.Fatal("the prompt was not blocked")
	}
	if len(ran) != 0 {
		t.Errorf("the blocked prompt's snippets ran: %q", ran)
	}
}

// A UserPromptSubmit hook runs after the prompt's checkpoint is taken (the
// turn's tool gate), so that what it changes belongs to the turn and a
// rewind takes it back.
func TestAPromptSubmitHookWaitsForThePromptsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	hs := []hooks.Hook{{Event: hooks.UserPromptSubmit, Command: `echo hooked > hooked.txt`, Source: "test"}}
	started := make(chan struct{})
	close(started)
	h := &hookSet{all: hs, dir: dir, warn: func(string) {}, started: started,
		runner: &hooks.Runner{Hooks: hs, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}}
	a := &agent{hooks: h, commands: &commands.Set{}}
	waited, early := false, false
	ctx := loop.WithToolGate(context.Background(), func(context.Context) {
		waited = true
		if _, err := os.Stat(filepath.Join(dir, "hooked.txt")); err == nil {
			early = true
		}
	})
	if s := a.submit(ctx, "s1", turn.Text("hi")); s.Blocked != "" {
		t.Fatalf("blocked: %s", s.Blocked)
	}
	if _, err := os.Stat(filepath.Join(dir, "hooked.txt")); err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if !waited || early {
		t.Errorf("the hook ran before the prompt's checkpoint (waited %v, file there already %v)", waited, early)
	}
}
