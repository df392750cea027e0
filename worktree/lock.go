package worktree

import (
	"os"
	"path/filepath"
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
	var f *os.File
	if err := os.MkdirAll(m.Dir, 0o700); err == nil {
		f, _ = os.OpenFile(filepath.Join(m.Dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	}
	if f != nil && lockFile(f) != nil {
		f.Close()
		f = nil // the in-process lock stands alone
	}
	return func() {
		if f != nil {
			unlockFile(f)
			f.Close()
		}
		m.gitMu.Unlock()
	}
}
