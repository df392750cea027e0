package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// A session's first command looks at the bounds before it runs (for the
// note on a bound it reached) without waiting for the sandbox's set-up:
// nothing has used them yet. The set-up (here with the namespace probe,
// which a status asked for) goes on beside the guard and the command's
// environment; the command itself waits for it.
func TestTheFirstCommandsGuardDoesNotWaitForTheSetUp(t *testing.T) {
	needLandlock(t)
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), MaxProcesses: 64, TempSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	fifos := t.TempDir()
	started, release := filepath.Join(fifos, "started"), filepath.Join(fifos, "release")
	for _, f := range []string{started, release} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The probe's helper says it started, then waits to be released and
	// finds no namespaces.
	exe := filepath.Join(t.TempDir(), "helper")
	script := "#!/bin/sh\necho started > " + started + "\ncat " + release + " >/dev/null\necho 'agent sandbox: unshare: not here' >&2\nexit 125\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l := sb.impl.(*linux)
	l.exe = exe
	released := false
	free := func() {
		if !released {
			released = true
			if w, err := os.OpenFile(release, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
		}
	}
	statusDone := make(chan struct{})
	defer sb.Close() // after free: Close waits for the set-up
	defer func() { <-statusDone }()
	defer free()

	go func() {
		defer close(statusDone)
		sb.Status()
	}()
	if _, err := os.ReadFile(started); err != nil { // the probe is running
		t.Fatal(err)
	}
	guarded := make(chan func(tools.Result) string)
	go func() { guarded <- sb.Guard() }()
	var after func(tools.Result) string
	select {
	case after = <-guarded:
	case <-time.After(time.Minute):
		free()
		t.Fatal("the first command's guard waited for the sandbox's set-up")
	}
	free()
	if after == nil {
		t.Fatal("no guard for a command under an enforced sandbox")
	}
	if note := after(tools.Result{Content: "fork: Resource temporarily unavailable"}); note == "" {
		t.Error("a first command refused a process got no note on the bound")
	}
	if note := after(tools.Result{Content: "ok"}); note != "" {
		t.Errorf("a first command that reached no bound got a note: %q", note)
	}
}
