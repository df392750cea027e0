//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// In the interface, "# NOTE" is saved to MEMORY.md without a request, and
// /memory opens MEMORY.md in $EDITOR (here a script that adds a line) and
// comes back to the conversation when the editor exits.
func TestInterfaceMemoryNoteAndEditor(t *testing.T) {
	t.Parallel()
	dir, db := project(t)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho '- added in the editor' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t)
	s := startTmux(t, dir, []string{"EDITOR=" + editor}, agentArgs(srv, "--db", db))
	s.waitFor("Ask about this repository")
	s.send("# the build needs go 1.26")
	s.waitFor("Saved to memory")
	s.send("/memory")
	s.waitFor("MEMORY.md saved")
	s.quit()

	mem := strings.TrimSpace(ok(t, invocation{dir: dir, args: []string{"--db", db, "memory", "path"}}).stdout)
	data, err := os.ReadFile(filepath.Join(mem, "MEMORY.md"))
	if err != nil || string(data) != "- the build needs go 1.26\n- added in the editor\n" {
		t.Errorf("MEMORY.md = %q, %v", data, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests; a note is not sent", n)
	}
}
