package hooks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Runner.Confine decides, hook by hook, what runs: a repository's hook
// runs the process Confine builds (here a wrapper that marks its output),
// with the hook's environment and stdin; a hook Confine leaves alone runs
// as before; a Confine that fails is the hook's Failure, and nothing ran.
func TestConfineRunsWhatTheSandboxBuilds(t *testing.T) {
	dir := t.TempDir()
	var specs []ConfineSpec
	r := &Runner{Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")},
		Hooks: []Hook{
			{Event: PostToolUse, Command: `echo "user $CLAUDE_PROJECT_DIR"`, Source: "user"},
			{Event: PostToolUse, Command: `read line; echo "project $line"`, Source: "project", Project: true},
			{Event: PostToolUse, Command: `touch ran`, Source: "plugin", Plugin: "p@m"},
		},
		Confine: func(h Hook, spec ConfineSpec) (Confined, error) {
			switch {
			case h.Plugin != "":
				return Confined{}, errors.New("no sandbox here")
			case !h.Project:
				return Confined{}, nil
			}
			specs = append(specs, spec)
			cmd := exec.Command("bash", "-c", "echo confined $STARTED_BY; bash -c \"$0\"", spec.Command)
			cmd.Dir, cmd.Env = spec.Dir, spec.Env
			return Confined{Cmd: cmd, Start: func(c *exec.Cmd) error { c.Env = append(c.Env, "STARTED_BY=confine"); return c.Start() },
				Transcript: "/readable/copy.jsonl"}, nil
		},
		Transcript: func(context.Context, string) string { return "/hidden/s1.jsonl" }}
	res := r.Run(context.Background(), "Edit", Input{HookEventName: PostToolUse, SessionID: "s1"})
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	if got := res[0].Stdout; got != "user "+dir+"\n" {
		t.Errorf("the user's hook printed %q", got)
	}
	if got := res[1].Stdout; !strings.HasPrefix(got, "confined confine\nproject {") || res[1].Exit != 0 {
		t.Errorf("the project's hook: %+v, want it run by Confine's process with its input", res[1])
	}
	if got := res[1].Stdout; !strings.Contains(got, `"transcript_path":"/readable/copy.jsonl"`) {
		t.Errorf("the confined hook read %q, want the transcript's copy as transcript_path", got)
	}
	if len(specs) != 1 || specs[0].Dir != dir || !slices.Contains(specs[0].Env, "CLAUDE_PROJECT_DIR="+dir) || specs[0].Transcript != "/hidden/s1.jsonl" {
		t.Errorf("Confine was given %+v", specs)
	}
	if !strings.Contains(res[2].Failure, "no sandbox here") {
		t.Errorf("the plugin's hook: %+v, want Confine's error as its failure", res[2])
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Error("the hook whose confinement failed ran")
	}
}

// A confined hook past its timeout is killed with its process group like
// any other.
func TestAConfinedHookIsStoppedAtItsTimeout(t *testing.T) {
	r := &Runner{Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")},
		Hooks: []Hook{{Event: Stop, Command: `sleep 30`, Project: true, Timeout: 200 * time.Millisecond}},
		Confine: func(h Hook, spec ConfineSpec) (Confined, error) {
			cmd := exec.Command("bash", "-c", spec.Command)
			cmd.Dir, cmd.Env = spec.Dir, spec.Env
			return Confined{Cmd: cmd}, nil
		}}
	start := time.Now()
	res := r.Run(context.Background(), "", Input{HookEventName: Stop})
	if len(res) != 1 || !strings.Contains(res[0].Failure, "timed out") {
		t.Fatalf("results %+v, want a timeout", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hook was stopped after %s", d)
	}
}
