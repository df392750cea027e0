package worktrees

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// In the interface, --worktree says where the session works, /worktrees
// lists the worktree as in use and dirty, and on quitting a line says
// where the kept worktree is and on which branch.
func TestInterfaceTellsOfItsWorktree(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: e2e.WriteArgs("notes.md", "notes\n")}),
		scripted.Text("Written."))
	s := e2e.StartTmux(t, p.repo, nil, e2e.AgentArgs(srv, "--db", p.db, "--permission-mode", "auto", "-w", "keep"))
	s.WaitFor("working in worktree")
	s.Send("write the notes")
	s.WaitFor("Written.")
	s.Idle()
	s.Send("/worktrees")
	screen := s.WaitFor("in use by process")
	if !strings.Contains(screen, "dirty (1 file); in use by process") || !strings.Contains(screen, "NAME") {
		t.Errorf("/worktrees:\n%s", screen)
	}
	s.Quit()
	history := s.History()
	if want := "agent: worktree kept at " + p.worktreeDir("keep") + " on branch agent/keep (0 commits, 1 file changed)"; !strings.Contains(history, want) {
		t.Errorf("the terminal after quitting lacks %q:\n%s", want, history)
	}
}
