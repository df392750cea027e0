//go:build linux

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// In the interface, "# NOTE" is saved to MEMORY.md without a request, and
// /memory opens MEMORY.md in $EDITOR (here a script that adds a line) and
// comes back to the conversation when the editor exits.
func TestInterfaceMemoryNoteAndEditor(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho '- added in the editor' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t)
	s := e2e.StartTmux(t, dir, []string{"EDITOR=" + editor}, e2e.AgentArgs(srv, "--db", db))
	s.WaitFor("Ask about this repository")
	s.Send("# the build needs go 1.26")
	s.WaitFor("Saved to memory")
	s.Send("/memory")
	s.WaitFor("MEMORY.md saved")
	s.Quit()

	mem := strings.TrimSpace(e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "path"}}).Stdout)
	data, err := os.ReadFile(filepath.Join(mem, "MEMORY.md"))
	if err != nil || string(data) != "- the build needs go 1.26\n- added in the editor\n" {
		t.Errorf("MEMORY.md = %q, %v", data, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests; a note is not sent", n)
	}
}
