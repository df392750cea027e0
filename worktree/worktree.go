// Package worktree makes and tracks the git worktrees agent works in: a
// session's (agent --worktree NAME) and a subagent's (isolation:
// worktree). Each is a linked worktree of the repository on a new branch,
// agent/NAME, made with the git command (git worktree add), in the
// agent's data directory rather than the repository, DIR/KEY/NAME, where
// KEY names the repository (Key): the main tree's file tools, searches and
// git status never see it. Beside each, DIR/KEY/NAME.json records it:
// its branch, the commit it started from, its session and the process
// working in it (Record), from which a later start tells a worktree left
// by a crash (Orphans).
//
// A worktree's state is clean, dirty (uncommitted changes), ahead (new
// commits since it started) or missing (its directory is gone). Finish,
// at a session's end, removes a worktree with no change and no new commit,
// and keeps any other; Remove and Prune never remove a dirty worktree
// without force, nor touch one whose owner still runs.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Errors a caller may tell apart (errors.Is).
var (
	// ErrInUse: the worktree's owner process still runs.
	ErrInUse = errors.New("in use")
	// ErrDirty: the worktree holds uncommitted changes and force was not
	// given.
	ErrDirty = errors.New("has uncommitted changes")
	// ErrNotFound: no worktree of that name was made by agent for the
	// repository.
	ErrNotFound = errors.New("no such worktree")
	// ErrNoRepo: the directory is in no git repository, or one without a
	// commit to start a worktree from.
	ErrNoRepo = errors.New("not in a git repository with a commit")
)

// Manager makes and tracks worktrees under Dir. Its methods are safe for
// concurrent use; other processes may work on the same Dir (each record
// is one file, written whole).
type Manager struct {
	// Dir is where the worktrees and their records live:
	// DIR/KEY/NAME and DIR/KEY/NAME.json.
	Dir string
	// Self is this process as a worktree's owner.
	Self Owner
	// Alive reports whether an owner may still run (on this machine: a
	// process with its id and start time exists). nil takes only Self for
	// alive.
	Alive func(Owner) bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	gitMu sync.Mutex // see lockGit
}

// alive reports whether o may still run.
func (m *Manager) alive(o *Owner) bool {
	switch {
	case o == nil:
		return false
	case *o == m.Self:
		return true
	case m.Alive == nil:
		return false
	}
	return m.Alive(*o)
}

func (m *Manager) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

// RepoDir is the directory of the worktrees of the repository whose main
// working tree is root: DIR/KEY.
func (m *Manager) RepoDir(root string) string { return filepath.Join(m.Dir, Key(root)) }

// Repo is the main working tree of the repository holding dir (for a
// bare repository, its directory), asked of git (git worktree list: its
// first entry). A directory in no repository is ErrNoRepo.
func Repo(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil {
		return "", fmt.Errorf("%s: %w (%v)", dir, ErrNoRepo, err)
	}
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			return filepath.Clean(p), nil
		}
	}
	return "", fmt.Errorf("%s: %w (git worktree list names no worktree)", dir, ErrNoRepo)
}

// Spec is what Create makes a worktree for.
type Spec struct {
	// Name names the worktree and its branch (agent/NAME); CheckName
	// must accept it.
	Name string
	// Session and Task are recorded (see Record).
	Session, Task string
}

// Create makes a worktree of the repository holding dir, starting from
// dir's HEAD, on branch agent/NAME (made for it; an existing agent/NAME
// branch is checked out instead, and kept), with this process as its
// owner, and records it. A name taken by another worktree of the
// repository is an error wrapping fs.ErrExist; dir in no repository, or in
// one without a commit, ErrNoRepo.
func (m *Manager) Create(ctx context.Context, dir string, spec Spec) (Record, error) {
	if err := CheckName(spec.Name); err != nil {
		return Record{}, err
	}
	unlock := m.lockGit()
	defer unlock()
	repo, err := Repo(ctx, dir)
	if err != nil {
		return Record{}, err
	}
	base, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w (HEAD names no commit yet)", dir, ErrNoRepo)
	}
	rdir, err := m.repoDirMade(repo)
	if err != nil {
		return Record{}, err
	}
	r := Record{Name: spec.Name, Repo: repo, Path: filepath.Join(rdir, spec.Name), Branch: BranchPrefix + spec.Name,
		Base: strings.TrimSpace(base), Session: spec.Session, Task: spec.Task, Owner: &m.Self, Created: m.now().UTC()}
	if err := claim(rdir, r); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Record{}, fmt.Errorf("worktree %s of %s exists already: %w", spec.Name, repo, err)
		}
		return Record{}, fmt.Errorf("recording worktree %s: %w", spec.Name, err)
	}
	if err := m.add(ctx, dir, &r); err != nil {
		os.Remove(recordPath(rdir, r.Name))
		return Record{}, err
	}
	if err := save(rdir, r); err != nil {
		_, _ = m.removeLocked(context.WithoutCancel(ctx), r, true)
		return Record{}, err
	}
	return r, nil
}

// repoDirMade makes the repository's directory of worktrees (0700) and
// returns it with its symlinks resolved, as git records worktree paths.
func (m *Manager) repoDirMade(repo string) (string, error) {
	rdir := m.RepoDir(repo)
	if err := os.MkdirAll(rdir, 0o700); err != nil {
		return "", fmt.Errorf("making the worktrees' directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(rdir)
	if err != nil {
		return "", fmt.Errorf("making the worktrees' directory: %w", err)
	}
	return real, nil
}

// add runs git worktree add for r: a new branch at r.Base, or the
// existing branch of that name (r.Base then becomes its tip).
func (m *Manager) add(ctx context.Context, dir string, r *Record) error {
	exists, err := gitOK(ctx, dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch)
	if err != nil {
		return err
	}
	if !exists {
		r.OwnBranch = true
		_, err := git(ctx, dir, "worktree", "add", "--quiet", "-b", r.Branch, r.Path, r.Base)
		return err
	}
	tip, err := git(ctx, dir, "rev-parse", "--verify", "refs/heads/"+r.Branch)
	if err != nil {
		return err
	}
	r.Base = strings.TrimSpace(tip)
	_, err = git(ctx, dir, "worktree", "add", "--quiet", r.Path, r.Branch)
	return err
}

// Get reads the record of worktree name of the repository whose main
// working tree is repo; ErrNotFound when agent made none of that name.
func (m *Manager) Get(repo, name string) (Record, error) {
	r, err := load(m.RepoDir(repo), name)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("worktree %s of %s: %w (agent worktree list shows them)", name, repo, ErrNotFound)
	}
	return r, err
}

// Find returns the record of the worktree that holds dir (its root or a
// directory below it), when agent made it (DIR/KEY/NAME with a record);
// ok false otherwise. It reads files only.
func (m *Manager) Find(dir string) (Record, bool) {
	base, err := filepath.EvalSymlinks(m.Dir)
	if err != nil {
		return Record{}, false
	}
	rel, err := filepath.Rel(base, filepath.Clean(dir))
	if err != nil || !filepath.IsLocal(rel) {
		return Record{}, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) < 2 {
		return Record{}, false
	}
	r, err := load(filepath.Join(base, parts[0]), parts[1])
	if err != nil || r.Path != filepath.Join(base, parts[0], parts[1]) {
		return Record{}, false
	}
	return r, true
}

// Adopt makes this process the owner of worktree r (a session opened in
// it, or a worktree taken up again by name), unless another live process
// owns it: ErrInUse then. The crash mark, if any, goes.
func (m *Manager) Adopt(r Record) (Record, error) {
	dir := filepath.Dir(r.Path)
	cur, err := load(dir, r.Name)
	if err != nil {
		return Record{}, fmt.Errorf("worktree %s: %w", r.Name, err)
	}
	if cur.Owner != nil && *cur.Owner != m.Self && m.alive(cur.Owner) {
		return cur, fmt.Errorf("worktree %s is %w by process %d", r.Name, ErrInUse, cur.Owner.PID)
	}
	cur.Owner, cur.Crashed = &m.Self, false
	return cur, save(dir, cur)
}

// SetSession records the session working in worktree r (known once the
// session is made, after its worktree).
func (m *Manager) SetSession(r Record, session string) (Record, error) {
	return m.update(r, func(cur *Record) { cur.Session = session })
}

// Release gives up this process's ownership of worktree r, keeping it.
func (m *Manager) Release(r Record) error {
	_, err := m.update(r, func(cur *Record) {
		if cur.Owner != nil && *cur.Owner == m.Self {
			cur.Owner = nil
		}
	})
	return err
}

// update changes r's record as it is stored now with change and saves it.
func (m *Manager) update(r Record, change func(*Record)) (Record, error) {
	dir := filepath.Dir(r.Path)
	cur, err := load(dir, r.Name)
	if err != nil {
		return Record{}, fmt.Errorf("worktree %s: %w", r.Name, err)
	}
	change(&cur)
	return cur, save(dir, cur)
}

// Orphans finds the worktrees of repo that a process left without closing
// them (their owner no longer runs), marks each as crashed and ownerless,
// and returns them: each is reported once, at the first start after the
// crash. Records that cannot be read are left alone.
func (m *Manager) Orphans(repo string) []Record {
	dir := m.RepoDir(repo)
	rs, _ := loadAll(dir)
	var out []Record
	for _, r := range rs {
		if r.Owner == nil || m.alive(r.Owner) {
			continue
		}
		r.Owner, r.Crashed = nil, true
		if save(dir, r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// Entry is a worktree as List shows it: its record, its state now, and
// whether its owner still runs.
type Entry struct {
	Record
	Status Status
	// InUse says its owner process still runs.
	InUse bool
	// Err is why its state could not be read ("" when it was).
	Err string
}

// List returns the worktrees agent made for repo (every repository's when
// repo is ""), oldest first, each with its state; problems reading a
// record or a state are returned beside them.
func (m *Manager) List(ctx context.Context, repo string) ([]Entry, []error) {
	dirs := []string{m.RepoDir(repo)}
	if repo == "" {
		dirs = nil
		ents, err := os.ReadDir(m.Dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, []error{fmt.Errorf("listing worktrees: %w", err)}
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(m.Dir, e.Name()))
			}
		}
	}
	var out []Entry
	var errs []error
	for _, d := range dirs {
		rs, es := loadAll(d)
		errs = append(errs, es...)
		for _, r := range rs {
			e := Entry{Record: r, InUse: m.alive(r.Owner)}
			st, err := StatusOf(ctx, r)
			if err != nil {
				if ctx.Err() != nil {
					return out, append(errs, ctx.Err())
				}
				e.Err = err.Error()
			}
			e.Status = st
			out = append(out, e)
		}
	}
	return out, errs
}
