package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Removed is what removing a worktree did.
type Removed struct {
	Record
	// BranchKept says its branch stays: it holds commits past Base, or
	// agent did not make it. Commits counts them.
	BranchKept bool
	Commits    int
}

// Remove removes worktree r: its directory (git worktree remove), its
// branch unless it holds commits past Base or existed before, and its
// record. A worktree whose owner still runs (another process) is
// ErrInUse, whatever force says; a dirty one ErrDirty unless force (its
// uncommitted changes are then lost). A worktree whose directory is gone
// loses git's record of it (git worktree prune).
func (m *Manager) Remove(ctx context.Context, r Record) (Removed, error) {
	return m.removeChecked(ctx, r, false)
}

// RemoveForce is Remove that discards uncommitted changes.
func (m *Manager) RemoveForce(ctx context.Context, r Record) (Removed, error) {
	return m.removeChecked(ctx, r, true)
}

// removeChecked reads r's record again and removes it unless another
// live process owns it or, without force, it is dirty.
func (m *Manager) removeChecked(ctx context.Context, r Record, force bool) (Removed, error) {
	cur, err := load(filepath.Dir(r.Path), r.Name)
	if errors.Is(err, fs.ErrNotExist) {
		return Removed{}, fmt.Errorf("worktree %s: %w", r.Name, ErrNotFound)
	}
	if err != nil {
		return Removed{}, err
	}
	if cur.Owner != nil && *cur.Owner != m.Self && m.alive(cur.Owner) {
		return Removed{Record: cur}, fmt.Errorf("worktree %s is %w by process %d", cur.Name, ErrInUse, cur.Owner.PID)
	}
	st, err := StatusOf(ctx, cur)
	if err != nil {
		return Removed{Record: cur}, err
	}
	if st.Dirty > 0 && !force {
		return Removed{Record: cur}, fmt.Errorf("worktree %s %w (%d files): commit them, or remove it with --force to lose them", cur.Name, ErrDirty, st.Dirty)
	}
	return m.remove(ctx, cur, force)
}

// remove removes worktree r without asking its owner or its state.
func (m *Manager) remove(ctx context.Context, r Record, force bool) (Removed, error) {
	unlock := m.lockGit()
	defer unlock()
	return m.removeLocked(ctx, r, force)
}

// removeLocked is remove with lockGit held.
func (m *Manager) removeLocked(ctx context.Context, r Record, force bool) (Removed, error) {
	out := Removed{Record: r}
	if _, err := os.Stat(r.Path); err == nil {
		args := []string{"worktree", "remove", r.Path}
		if force {
			args = []string{"worktree", "remove", "--force", r.Path}
		}
		if _, err := git(ctx, r.Repo, args...); err != nil {
			return out, fmt.Errorf("removing worktree %s: %w", r.Name, err)
		}
	}
	if _, err := git(ctx, r.Repo, "worktree", "prune"); err != nil {
		return out, fmt.Errorf("removing worktree %s: %w", r.Name, err)
	}
	exists, err := gitOK(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch)
	if err != nil {
		return out, fmt.Errorf("removing worktree %s: %w", r.Name, err)
	}
	if exists {
		if out.Commits, err = commitsSince(ctx, r.Repo, r.Base, "refs/heads/"+r.Branch); err != nil {
			return out, fmt.Errorf("removing worktree %s: %w", r.Name, err)
		}
		out.BranchKept = out.Commits > 0 || !r.OwnBranch
		if !out.BranchKept {
			if _, err := git(ctx, r.Repo, "branch", "--quiet", "-D", r.Branch); err != nil {
				return out, fmt.Errorf("removing worktree %s's branch: %w", r.Name, err)
			}
		}
	}
	if err := os.Remove(recordPath(filepath.Dir(r.Path), r.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Errorf("removing worktree %s's record: %w", r.Name, err)
	}
	return out, nil
}

// Finished is what Finish did with a worktree at its session's end.
type Finished struct {
	Record
	// Removed says it held nothing and is gone, with its branch.
	Removed bool
	// Status is its state when the session ended; Diff, for a kept one,
	// what it changed since it started.
	Status Status
	Diff   Diff
}

// Kept is the line that tells the person where a kept worktree is:
// "worktree kept at PATH on branch agent/NAME (2 commits, 3 files
// changed)".
func (f Finished) Kept() string {
	return fmt.Sprintf("worktree kept at %s on branch %s (%s, %s)", f.Path, f.Branch,
		plural(f.Status.Commits, "commit"), plural(len(f.Diff.Files), "file")+" changed")
}

// plural is "1 commit", "2 commits".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Finish ends this process's work in worktree r: one with no uncommitted
// change and no new commit is removed with its branch (when agent made
// it); any other is kept, ownerless, with what it changed since it
// started. remove false keeps it whatever it holds (a worktree the
// session did not make). A worktree another process owns now is left as
// it is.
func (m *Manager) Finish(ctx context.Context, r Record, remove bool) (Finished, error) {
	out := Finished{Record: r}
	st, err := StatusOf(ctx, r)
	if err != nil {
		return out, err
	}
	out.Status = st
	if remove && !st.Changed() && !st.Missing {
		_, err := m.removeChecked(ctx, r, false)
		if errors.Is(err, ErrInUse) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out.Removed = true
		return out, nil
	}
	if !st.Missing {
		if out.Diff, err = DiffOf(ctx, r); err != nil {
			return out, err
		}
	}
	return out, m.Release(r)
}
