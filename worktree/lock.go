package worktree

import (
	"path/filepath"

	"github.com/agent-dev/agent/gitcmd"
)

// lockGit serialises the git commands that change or list a repository's
// worktrees: `git worktree add` reads every other worktree's files and
// fails on one that another `git worktree add` is still making ("failed to
// read .git/worktrees/NAME/commondir"), as three isolated subagents
// starting at once showed. The lock is the Manager's within this process
// and, where the system has it, an advisory lock on Dir/.lock across
// processes. The returned function releases it.
func (m *Manager) lockGit() (unlock func()) {
	m.gitMu.Lock()
	release := gitcmd.LockFile(filepath.Join(m.Dir, ".lock"))
	return func() {
		release()
		m.gitMu.Unlock()
	}
}
