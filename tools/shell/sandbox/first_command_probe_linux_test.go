//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell"
)

// firstBox is a box whose bash tool starts commands with the sandbox's
// Start (as the agent's does) and whose sandbox has not probed its
// namespaces: its first command probes them as it starts. The session's
// tmpfs is 8 MiB.
func firstBox(t *testing.T) *box {
	t.Helper()
	b := newBox(t, func(p *Policy) { p.MaxProcesses, p.TempSize = 64, 8<<20 })
	b.tool = shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, Start: b.sb.Start, Guard: b.sb.Guard, KillGrace: time.Second,
		ExtraEnv: []string{"TMPDIR=" + b.sb.TempDir()}})
	return b
}

// A session's first command needs no namespace probe before it: it probes
// them as it starts, and makes the session's tmpfs, which it and the later
// commands have as their temporary directory. It is confined as any
// command is: the host's temporary directory, the git hooks and a
// protected directory stay out of its reach.
func TestTheFirstCommandProbesAsItStarts(t *testing.T) {
	b := firstBox(t)
	l := b.sb.impl.(*linux)
	res := b.run(`echo kept > "$TMPDIR/f" && stat -f -c %T "$TMPDIR"; echo x > ` + filepath.Join(b.tmp, "x") +
		`; echo hook > .git/hooks/pre-commit; echo y > .agent-config/y; echo done`)
	st := b.sb.Status()
	if !st.UserNamespaces {
		t.Skipf("user namespaces are unavailable here (%s)", st.UserNamespacesErr)
	}
	if !strings.HasPrefix(res.Content, "tmpfs\n") || !strings.Contains(res.Content, "done") {
		t.Fatalf("the first command should run with the session's tmpfs as its temporary directory:\n%s", res.Content)
	}
	if n := l.probes.Load(); n != 0 {
		t.Errorf("%d namespace probes ran: the first command should have probed as it started", n)
	}
	absent(t, filepath.Join(b.tmp, "x"))
	absent(t, filepath.Join(b.work, ".git", "hooks", "pre-commit"))
	absent(t, filepath.Join(b.innerConfig, "y"))
	if res := b.run(`cat "$TMPDIR/f"`); !strings.HasPrefix(res.Content, "kept\n") {
		t.Errorf("a later command should find what the first left in the session's tmpfs:\n%s", res.Content)
	}
	if ents, _ := os.ReadDir(b.sb.TempDir()); len(ents) != 0 {
		t.Errorf("the host sees the commands' temporary files: %v", ents)
	}
	if !strings.Contains(strings.Join(st.Bounds, ";"), "at most 8 MiB (tmpfs)") {
		t.Errorf("the session's tmpfs, made by the first command, should bound its temporary directory: %q %q", st.Bounds, st.Warnings)
	}
	if n := l.probes.Load(); n != 0 {
		t.Errorf("%d namespace probes ran after the first command", n)
	}
}

// Commands that start together as a session's first ones: one probes as
// it starts, the others are built again once it has; all run, each with
// its own result, and all share the one tmpfs.
func TestFirstCommandsStartedTogether(t *testing.T) {
	b := firstBox(t)
	const n = 4
	var wg sync.WaitGroup
	out := make([]string, n)
	for i := range n {
		wg.Go(func() {
			out[i] = b.run(fmt.Sprintf(`echo %d > "$TMPDIR/f%d" && echo out %d`, i, i, i)).Content
		})
	}
	wg.Wait()
	for i, o := range out {
		if !strings.HasPrefix(o, fmt.Sprintf("out %d\n", i)) {
			t.Errorf("command %d: %q", i, o)
		}
	}
	if !b.sb.Status().UserNamespaces {
		return // each had its own temporary directory, as every command has without namespaces
	}
	if res := b.run(`cd "$TMPDIR" && ls`); !strings.HasPrefix(res.Content, "f0\nf1\nf2\nf3\n") {
		t.Errorf("the commands should share the session's tmpfs:\n%s", res.Content)
	}
}

// Where the first command's namespaces fail before it got as far as a
// probe's, nothing of it ran: the namespace probe decides, as before any
// command, and the command is built again without namespaces and runs
// once, its result without the failed set-up's message. The helper here
// is a script that fails as a kernel without user namespaces would.
func TestAFirstCommandWhoseNamespacesFailRunsOnce(t *testing.T) {
	b := firstBox(t)
	l := b.sb.impl.(*linux)
	exe := filepath.Join(t.TempDir(), "helper")
	script := `#!/bin/sh
for a; do
	case $a in
	--probe-fd=*) eval "echo 'agent sandbox: unshare: not here' >&${a#--probe-fd=}"; exit 125 ;;
	--probe) echo 'agent sandbox: unshare: not here' >&2; exit 125 ;;
	--) break ;;
	esac
done
for a; do
	case $a in
	--private-mounts) echo 'a command with namespaces' >&2; exit 125 ;;
	--) shift; exec "$@" ;;
	esac
	shift
done
exit 2
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l.exe = exe
	res := b.run(`echo ran >> runs; cat runs`)
	if res.IsError || !strings.HasPrefix(res.Content, "ran\n") || strings.Contains(res.Content, "ran\nran") || strings.Contains(res.Content, "agent sandbox") {
		t.Errorf("the command should have run once, without namespaces, its result its own:\n%q", res.Content)
	}
	st := b.sb.Status()
	if st.UserNamespaces || !strings.Contains(st.UserNamespacesErr, "not here") {
		t.Errorf("the probe should have found no namespaces: %v %q", st.UserNamespaces, st.UserNamespacesErr)
	}
	if n := l.probes.Load(); n != 1 {
		t.Errorf("%d namespace probes ran, want 1 (after the first command's failed)", n)
	}
}

// The guard of another command, started while the first is built to probe
// as it starts, neither waits for a probe nor runs one: the first command
// still learns the verdict, and no probe runs.
func TestAGuardBesideTheFirstCommandRunsNoProbe(t *testing.T) {
	b := firstBox(t)
	l := b.sb.impl.(*linux)
	cmd, err := b.sb.Build(shell.Spec{Command: "true", Dir: b.work, BuildAgain: true})
	if err != nil {
		t.Fatal(err)
	}
	after := b.sb.Guard() // another call's, as the first is about to start
	if err := b.sb.Start(cmd); err != nil {
		t.Fatalf("the first command should have started, probing: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if after != nil {
		after(tools.Result{Content: "ok"})
	}
	if n := l.probes.Load(); n != 0 && b.sb.Status().UserNamespaces {
		t.Errorf("%d namespace probes ran beside the first command", n)
	}
}

// A first command built before the sandbox was closed and started after:
// nothing starts, nothing probes, and the commands' temporary directory,
// which Close removed, is not made again (the tool builds it no more).
func TestAFirstCommandStartedAfterCloseStartsNothing(t *testing.T) {
	b := firstBox(t)
	l := b.sb.impl.(*linux)
	cmd, err := b.sb.Build(shell.Spec{Command: "touch started", Dir: b.work, BuildAgain: true})
	if err != nil {
		t.Fatal(err)
	}
	b.sb.Close()
	err = b.sb.Start(cmd)
	if err == nil {
		cmd.Wait()
		t.Fatal("a command started after Close")
	}
	if errors.Is(err, shell.ErrBuildAgain) {
		t.Errorf("after Close the command should not be built again: %v", err)
	}
	absent(t, filepath.Join(b.work, "started"))
	absent(t, b.sb.TempDir())
	if n := l.probes.Load(); n != 0 {
		t.Errorf("%d namespace probes ran after Close", n)
	}
}
