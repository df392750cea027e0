//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/shell"
)

// boundedBox is a box whose commands have at most procs processes and a
// temporary directory of their own of tmpMiB MiB, with TMPDIR set as the
// agent sets it.
func boundedBox(t *testing.T, procs int, tmpMiB int64) *box {
	t.Helper()
	b := newBox(t, func(p *Policy) { p.MaxProcesses, p.TempSize = procs, tmpMiB<<20 })
	b.tool = shell.New(shell.Config{Dir: b.work, Build: b.sb.Build, Start: b.sb.Start, Guard: b.sb.Guard, KillGrace: time.Second,
		ExtraEnv: []string{"TMPDIR=" + b.sb.TempDir()}})
	return b
}

// A command that starts processes without end is refused beyond the bound,
// and the result says which bound it reached.
func TestProcessBound(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (bash retries a refused fork for 15 s)")
	}
	b := boundedBox(t, 64, 8)
	b.needNamespaces()
	if len(b.sb.Status().Bounds) == 0 || !strings.Contains(strings.Join(b.sb.Status().Bounds, ";"), "64 processes") {
		t.Skipf("no process bound here: %q", b.sb.Status().Warnings)
	}
	res := b.run(`python3 -c '
import os, time
n = 0
try:
    for i in range(500):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
except OSError as e:
    print("refused after", n, e)
'`)
	if !strings.Contains(res.Content, "refused after") {
		t.Errorf("500 processes were started under a bound of 64:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "bound of 64 processes") {
		t.Errorf("the result should name the bound:\n%s", res.Content)
	}
	if res := b.run("echo fine"); strings.Contains(res.Content, "bound") {
		t.Errorf("the next command is not affected (its processes were killed), and gets no note:\n%s", res.Content)
	}
}

// Commands get a temporary directory of their own (TMPDIR) that lasts for
// the session, is bounded in size, and says so when full; the host's
// temporary directory is not writable, and the host sees nothing of it.
func TestSessionTemporaryDirectory(t *testing.T) {
	b := boundedBox(t, 0, 8)
	b.needNamespaces()
	if st := b.sb.Status(); !strings.Contains(strings.Join(st.Bounds, ";"), "at most 8 MiB") {
		t.Skipf("no bounded temporary directory here: %q", st.Warnings)
	}
	dir := b.sb.TempDir()
	if res := b.run(`echo kept > "$TMPDIR/f" && echo "$TMPDIR"`); !strings.HasPrefix(res.Content, dir+"\n") {
		t.Fatalf("TMPDIR should be the session's directory %s:\n%s", dir, res.Content)
	}
	if res := b.run(`cat "$TMPDIR/f"`); !strings.HasPrefix(res.Content, "kept\n") {
		t.Errorf("the temporary directory should last for the session:\n%s", res.Content)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the host sees the commands' temporary files in %s: %v", dir, ents)
	}
	res := b.run(`dd if=/dev/zero of="$TMPDIR/big" bs=1M count=20 2>&1; echo end`)
	if !strings.Contains(res.Content, "No space left on device") || !strings.Contains(res.Content, "is full: it holds at most 8 MiB") {
		t.Errorf("a full temporary directory should fail and say which bound:\n%s", res.Content)
	}
	if res := b.run("echo x > " + filepath.Join(b.tmp, "x")); exitCode(res) == 0 {
		t.Errorf("the host's temporary directory should not be writable:\n%s", res.Content)
	}
	absent(t, filepath.Join(b.tmp, "x"))
	b.sb.Close()
	absent(t, dir)
}
