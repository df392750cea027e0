package worktree

import (
	"context"
	"errors"
	"fmt"
)

// Pruned is what Prune did with one worktree: removed it, or kept it
// and why.
type Pruned struct {
	Removed
	// Kept says it stays; Why says why (in use, dirty, a failure).
	Kept bool
	Why  string
}

// Prune removes the worktrees of repo that no live process works in:
// clean ones, ahead ones (their branch stays, with its commits), and
// missing ones (git's record of them goes too: git worktree prune). A
// dirty one is kept unless force; one whose owner still runs is never
// touched. It returns what it did with each, oldest first.
func (m *Manager) Prune(ctx context.Context, repo string, force bool) ([]Pruned, error) {
	rs, errs := loadAll(m.RepoDir(repo))
	var out []Pruned
	for _, r := range rs {
		rm, err := m.removeChecked(ctx, r, force)
		p := Pruned{Removed: rm}
		switch {
		case err == nil:
		case errors.Is(err, ErrInUse):
			p.Kept, p.Why = true, fmt.Sprintf("in use by process %d", rm.Owner.PID)
		case errors.Is(err, ErrDirty):
			p.Kept, p.Why = true, "uncommitted changes (--force removes them)"
		case ctx.Err() != nil:
			return out, ctx.Err()
		default:
			p.Kept, p.Why = true, err.Error()
		}
		if p.Record.Name == "" {
			p.Record = r
		}
		out = append(out, p)
	}
	unlock := m.lockGit()
	_, err := git(ctx, repo, "worktree", "prune")
	unlock()
	if err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}
