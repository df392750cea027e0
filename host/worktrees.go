package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/worktree"
)

// worktreeWait bounds the git commands that end a session's worktree at
// Close (its state, its removal), which runs without a context of its own.
const worktreeWait = time.Minute

// newWorktrees is the manager of the worktrees agent makes in the data
// directory data (DATA/worktrees), owned by this process.
func newWorktrees(data string) *worktree.Manager {
	self := sessions.Self()
	return &worktree.Manager{
		Dir:  filepath.Join(data, worktree.DirName),
		Self: worktree.Owner{PID: self.PID, Start: self.Start, Host: self.Host},
		Alive: func(o worktree.Owner) bool {
			return sessions.Holder{PID: o.PID, Start: o.Start, Host: o.Host}.Alive()
		},
	}
}

// Worktrees is the manager of the worktrees agent makes (agent worktree
// list, remove, prune); without a data directory it is a UsageError.
func (h *Host) Worktrees() (*worktree.Manager, error) {
	if h.worktrees == nil {
		return nil, cmp.Or(h.dbErr, error(errNoDataDir))
	}
	return h.worktrees, nil
}

// WorktreeRepo is the main working tree of the repository holding dir, as
// the worktrees' records name it; a UsageError when dir is in none.
func WorktreeRepo(ctx context.Context, dir string) (string, error) {
	repo, err := worktree.Repo(ctx, dir)
	if errors.Is(err, worktree.ErrNoRepo) {
		return "", UsageError{Err: err}
	}
	return repo, err
}

// sessionWorktree is the agent worktree a session works in.
type sessionWorktree struct {
	m   *worktree.Manager
	rec worktree.Record
	// made says the session made it: it goes at Close when it holds
	// nothing; a worktree taken up again is always kept.
	made bool
}

// enterWorktree makes the session's directory worktree req.Worktree of
// the repository holding req.Dir, or takes it up again when agent made it
// before and nobody works in it, and returns its directory. The worktree
// ends with the session (finishWorktree). A directory in no repository,
// --resume beside it, or a worktree another process works in are
// UsageErrors.
func (s *Session) enterWorktree(ctx context.Context, req Request, fe FrontEnd) (string, error) {
	if req.Resume != "" {
		return "", usagef("--worktree and --resume cannot be used together: agent --worktree NAME --continue goes on with the worktree's latest session")
	}
	if err := worktree.CheckName(req.Worktree); err != nil {
		return "", UsageError{Err: err}
	}
	m, err := s.h.Worktrees()
	if err != nil {
		return "", err
	}
	repo, err := WorktreeRepo(ctx, req.Dir)
	if err != nil {
		return "", usagef("--worktree: %w", err)
	}
	wt := &sessionWorktree{m: m}
	rec, err := m.Get(repo, req.Worktree)
	switch {
	case err == nil:
		if st, serr := worktree.StatusOf(ctx, rec); serr == nil && st.Missing {
			// Its directory is gone: make it anew (its branch is taken up).
			if _, err := m.RemoveForce(ctx, rec); err != nil {
				return "", err
			}
			break
		}
		if wt.rec, err = m.Adopt(rec); errors.Is(err, worktree.ErrInUse) {
			return "", UsageError{Err: err}
		} else if err != nil {
			return "", err
		}
	case !errors.Is(err, worktree.ErrNotFound):
		return "", err
	}
	if wt.rec.Name == "" {
		if wt.rec, err = m.Create(ctx, req.Dir, worktree.Spec{Name: req.Worktree}); err != nil {
			return "", fmt.Errorf("--worktree: %w", err)
		}
		wt.made = true
	}
	s.wt = wt
	s.onClose(func() { s.finishWorktree(ctx, fe) })
	fe.warn(fmt.Sprintf("working in worktree %s on branch %s", wt.rec.Path, wt.rec.Branch))
	return worktree.SameSubdir(ctx, req.Dir, wt.rec.Path), nil
}

// adoptWorktree makes this process the owner of dir's worktree when dir
// is one agent made (a session opened in it, agent -c there), so that no
// prune removes it under the session; Close gives it back, kept. Nothing
// happens for another directory, or when another live process owns it.
func (s *Session) adoptWorktree(dir string) {
	m := s.h.worktrees
	if m == nil || s.wt != nil {
		return
	}
	rec, ok := m.Find(dir)
	if !ok {
		return
	}
	rec, err := m.Adopt(rec)
	if err != nil {
		return
	}
	s.wt = &sessionWorktree{m: m, rec: rec}
	s.onClose(func() { _ = m.Release(rec) })
}

// recordWorktreeSession records the session's id with its worktree.
func (s *Session) recordWorktreeSession() {
	if s.wt == nil || s.wt.rec.Session == s.id {
		return
	}
	if rec, err := s.wt.m.SetSession(s.wt.rec, s.id); err == nil {
		s.wt.rec = rec
	}
}

// reportOrphans tells the person, once, of the worktrees of dir's
// repository that a process left without ending its session (killed, or
// its machine stopped).
func (s *Session) reportOrphans(dir string, fe FrontEnd) {
	m := s.h.worktrees
	if m == nil {
		return
	}
	repo, ok := worktree.RepoOf(dir)
	if !ok {
		return
	}
	left := m.Orphans(repo)
	if len(left) == 0 {
		return
	}
	names := make([]string, len(left))
	for i, r := range left {
		names[i] = r.Name
	}
	what := "1 worktree was"
	if len(left) > 1 {
		what = fmt.Sprintf("%d worktrees were", len(left))
	}
	fe.warn(fmt.Sprintf("%s left by a session that did not end (%s): agent worktree list shows them, agent worktree prune removes the clean ones",
		what, strings.Join(names, ", ")))
}

// finishWorktree ends the session's worktree at Close: one the session
// made that holds no change and no new commit goes, with its branch; any
// other is kept, and the person is told where, on which branch and what
// it holds.
func (s *Session) finishWorktree(ctx context.Context, fe FrontEnd) {
	wt := s.wt
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), worktreeWait)
	defer cancel()
	f, err := wt.m.Finish(ctx, wt.rec, wt.made)
	switch {
	case err != nil:
		fe.warn(fmt.Sprintf("worktree %s: %v; it is kept at %s (agent worktree list)", wt.rec.Name, err, wt.rec.Path))
	case !f.Removed:
		fe.warn(f.Kept())
	}
}

// Worktree is the directory and branch of the agent worktree the session
// works in; ok false when it works in none.
func (s *Session) Worktree() (path, branch string, ok bool) {
	if s.wt == nil {
		return "", "", false
	}
	return s.wt.rec.Path, s.wt.rec.Branch, true
}
