//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/shell"
)

// The git guard undoes what a confined command left in .git for the
// person's git (a commondir pointing at a config with core.fsmonitor) as
// soon as the command ends. A background command does not end with its
// call: while it runs, the person's own `git status` must not run a
// program the sandboxed command chose, outside the sandbox.
func TestThePersonsGitRunsNothingABackgroundCommandPlantedWhileItRuns(t *testing.T) {
	needGit(t)
	b := newBox(t, func(p *Policy) {
		os.RemoveAll(filepath.Join(p.Dir, ".git"))
		gitMust(t, "init", "-q", p.Dir)
		gitMust(t, "-C", p.Dir, "commit", "-q", "--allow-empty", "-m", "first")
	})
	b.needNamespaces()
	m, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg"), KillGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tool := shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, BuildBackground: b.sb.BuildBackground, Start: b.sb.Start,
		Guard: b.sb.Guard, GuardBackground: b.sb.GuardBackground, KillGrace: time.Second, Background: m})
	run := func(args map[string]any) tools.Result {
		raw, _ := json.Marshal(args)
		res, err := tool.Run(t.Context(), tools.Call{Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	pwned := filepath.Join(b.outside, "pwned")
	plant := `while [ ! -e go ]; do sleep 0.01; done; mkdir -p evil && cp -r .git/objects .git/refs evil/ && ` +
		`printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ` + pwned + `; false"\n' > evil/config && ` +
		`{ echo "$PWD/evil" > .git/commondir; touch planted; } && exec sleep 600`
	if res := run(map[string]any{"command": plant, "run_in_background": true}); res.IsError {
		t.Fatalf("the background command did not start: %s", res.Content)
	}
	// The plant happens while no call runs (the model is thinking); then
	// the model runs another command, whose guard runs at its end.
	write(t, filepath.Join(b.work, "go"), "")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(b.work, "planted")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background command did not write its files: %+v", m.List())
		}
	}
	if res := run(map[string]any{"command": "echo working"}); res.IsError {
		t.Fatalf("the later command: %s", res.Content)
	}
	gitOutside(t, b.work, "status") // the person looks at their repository
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the person's git status ran a program a background command planted (.git/commondir -> evil/config's core.fsmonitor), outside the sandbox")
	}
	if _, err := os.Stat(filepath.Join(b.work, ".git", "commondir")); err == nil {
		t.Errorf(".git/commondir, written by a confined background command, is still there after a later command ended (its guard ran)")
	}
}

// The git guard of a background command looks at what changed in the
// repositories between the command's start and its end: for a dev server
// that is hours, in which the person works on too. What the person did
// meanwhile (a pre-commit hook installed in a nested repository of
// theirs) is theirs: stopping the server must not move it aside.
func TestStoppingABackgroundCommandLeavesAloneWhatThePersonDidInTheRepositoryMeanwhile(t *testing.T) {
	needGit(t)
	b := newBox(t, func(p *Policy) {
		os.RemoveAll(filepath.Join(p.Dir, ".git"))
		gitMust(t, "init", "-q", p.Dir)
	})
	b.needNamespaces()
	m, err := background.New(background.Config{Dir: filepath.Join(t.TempDir(), "bg"), KillGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tool := shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, BuildBackground: b.sb.BuildBackground, Start: b.sb.Start,
		Guard: b.sb.Guard, GuardBackground: b.sb.GuardBackground, KillGrace: time.Second, Background: m})
	raw, _ := json.Marshal(map[string]any{"command": "exec sleep 600", "run_in_background": true})
	if res, err := tool.Run(t.Context(), tools.Call{Args: raw}); err != nil || res.IsError {
		t.Fatalf("the background command did not start: %v %s", err, res.Content)
	}
	// The person, in their own terminal, sets up a repository of theirs
	// with a hook.
	sub := filepath.Join(b.work, "mine")
	gitMust(t, "init", "-q", sub)
	hook := filepath.Join(sub, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexec lint\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.Stop(t.Context(), "bash_1") // the model stops the server
	if _, err := os.Stat(hook); err != nil {
		t.Errorf("the person's own hook was moved aside when the background command ended: %v; the model is told: %q", err, m.Notes(""))
	}
}
