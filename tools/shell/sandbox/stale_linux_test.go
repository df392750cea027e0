//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
