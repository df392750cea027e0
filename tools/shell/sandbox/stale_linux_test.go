//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/tools/shell"
)

// A commands' temporary directory left by an agent that was killed is
// removed by the next agent; a live agent's and unrelated entries stay.
func TestStaleTemporaryDirectoriesAreRemoved(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dead := filepath.Join(dir, fmt.Sprintf("%s%d-1", tempPrefix, gone.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf("%s%d-2", tempPrefix, os.Getpid()))
	other := filepath.Join(dir, "agent-tmp-notapid")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "f"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(dir, tempPrefix, os.RemoveAll)
	absent(t, dead)
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

// The next agent removes them at its first command: a run that runs none
// does not read the whole temporary directory.
func TestStaleTemporaryDirectoriesGoAtTheFirstCommand(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := filepath.Join(tmp, fmt.Sprintf("%s%d-1", tempPrefix, gone.Process.Pid))
	if err := os.MkdirAll(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), TempSize: 1 << 20, TempDirs: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := os.Stat(dead); err != nil {
		t.Fatalf("removed before any command: %v", err)
	}
	if _, err := sb.Build(shell.Spec{Command: "true", Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	sb.Close() // waits for the removal, which the command did not
	absent(t, dead)
}

// A run that runs no command makes no temporary directory for commands;
// the first command makes it, and Close removes it.
func TestTheCommandsTemporaryDirectoryIsMadeAtTheFirstCommand(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), TempSize: 1 << 20, TempDirs: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	d := sb.TempDir()
	if d == "" || filepath.Dir(d) != tmp {
		t.Fatalf("TempDir = %q, want one in %s", d, tmp)
	}
	absent(t, d)
	if _, err := sb.Build(shell.Spec{Command: "true", Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("after the first command: %v, %v", fi, err)
	}
	sb.Close()
	absent(t, d)
}
