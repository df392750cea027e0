package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/gitcmd"
	"github.com/agent-dev/agent/gitfmt"
)

// Snapshot is a checkpoint just taken.
type Snapshot struct {
	// Tree is the checkpoint: the id of a git tree in the store (40 hex
	// digits), the working directory's files as git would see them.
	Tree string
	// Skipped are the files left out of it, and why, sorted by path.
	Skipped []Skipped
}

// Skipped is a file a checkpoint left out.
type Skipped struct {
	Path   string // slash-separated, relative to the working directory
	Reason string // "larger than N MiB", "a nested git repository"
}

// errBrokenIndex is take's failure to write the tree of a session's
// index: Take reads the tree afresh once.
var errBrokenIndex = errors.New("the session's index cannot be written as a tree")

// Take takes a checkpoint of the working directory for session (an id
// made of letters, digits, '-' and '_') and keeps it under the ref
// refs/agent/SESSION/NAME, replacing the tree name held before; a tree
// the session's last checkpoint took is not kept again (no new ref: it is
// kept already). It
// reads what changed since the session's last checkpoint (its first one
// starts from the index of the project's latest session, so a new
// session does not read every file again), stores the changed files'
// content, and writes the tree. Files git ignores, .git and files larger
// than the size cap are left out. Cancelling ctx stops git; the
// checkpoint is then not taken.
func (s *Store) Take(ctx context.Context, session, name string) (Snapshot, error) {
	return s.takeNamed(ctx, session, name, nil)
}

// TakeChanged is Take for a caller that knows what changed since the
// session's last checkpoint in this process: only paths (slash-separated,
// relative to the working directory: the files a turn's file tools
// wrote) are read again, the rest is as that checkpoint held it, and no
// watch is asked. A path git ignores that the checkpoint did not hold is
// left out, as Take leaves it out. Without an earlier checkpoint of the
// session in this process it is Take.
func (s *Store) TakeChanged(ctx context.Context, session, name string, paths []string) (Snapshot, error) {
	if s.state(session).tree == "" {
		return s.Take(ctx, session, name)
	}
	known := make([]string, 0, len(paths))
	for _, p := range paths {
		if s.prefix != "" {
			p = s.prefix + "/" + p
		}
		known = append(known, p)
	}
	return s.takeNamed(ctx, session, name, known)
}

// takeNamed is Take, reading again only known (work-tree paths) when it
// is not nil.
func (s *Store) takeNamed(ctx context.Context, session, name string, known []string) (Snapshot, error) {
	if !validName(session) || !validName(name) {
		return Snapshot{}, fmt.Errorf("checkpoint %q of session %q: not a valid name", name, session)
	}
	if session != warmSession {
		if err := s.waitWarm(ctx); err != nil {
			return Snapshot{}, err
		}
	}
	st := s.state(session)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.checkSize(); err != nil {
		return Snapshot{}, fmt.Errorf("taking a checkpoint of %s: %w", s.dir, err)
	}
	index := s.indexOf(session)
	fresh := false
	if _, err := os.Stat(index); errors.Is(err, fs.ErrNotExist) {
		fresh = !s.seedIndex(index)
	}
	snap, err := s.take(ctx, session, index, fresh, st, known)
	if errors.Is(err, errBrokenIndex) && !fresh {
		// The index names content the store no longer has (it was
		// seeded from a session forgotten meanwhile, whose content was
		// pruned): the tree is read afresh.
		if rerr := os.Remove(index); rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
			snap, err = s.take(ctx, session, index, true, st, nil)
		}
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("taking a checkpoint of %s: %w", s.dir, err)
	}
	// A tree the session's last checkpoint took is kept already: refs go
	// only with their whole session (Forget), and none is read by name.
	if snap.Tree != st.tree {
		if err := s.keep(ctx, session, name, snap.Tree); err != nil {
			// The index holds the changes the watch handed over, and no
			// checkpoint their tree: the next one reads in full.
			s.mu.Lock()
			if s.watch != nil {
				s.watch.setFull(session)
			}
			s.mu.Unlock()
			return Snapshot{}, fmt.Errorf("taking a checkpoint of %s: %w", s.dir, err)
		}
	}
	st.tree = snap.Tree
	s.markLatest(session)
	return snap, nil
}

func (s *Store) take(ctx context.Context, session, index string, fresh bool, st *sessionState, known []string) (_ Snapshot, err error) {
	if err := s.syncExclude(); err != nil {
		return Snapshot{}, err
	}
	g := s.git(index)
	g.Yield = true // read beside a turn's request, or as it ends
	spec := s.pathspec()
	// The index read in process, when it can be (nil: git reads it), at
	// its first use: a checkpoint with nothing new to read reads none.
	var x *gitfmt.Index
	read := false
	indexed := func() *gitfmt.Index {
		if !read {
			x, read = s.readIndex(index), true
		}
		return x
	}
	var paths []string
	full := true
	// The index's entries git now ignores, listed when the watch started
	// (watchListed).
	var ignoredCached []string
	watchListed := false
	if known != nil && !fresh {
		// What changed is known: no watch, no full read.
		if len(known) == 0 {
			return Snapshot{Tree: st.tree}, nil
		}
		if paths, err = s.sortChanged(ctx, g, known, indexed()); err != nil {
			return Snapshot{}, err
		}
		full = false
	} else if !fresh {
		var w *watcher
		if w, ignoredCached, watchListed = s.watcher(ctx, g, session); !watchListed {
			ignoredCached, watchListed = s.takePrelisted(index)
		}
		if w != nil {
			// The changes the watch hands over are gone from it: a
			// checkpoint that fails (cancelled, a file git refused) leaves
			// the next one to read the tree in full.
			defer func() {
				if err != nil {
					w.setFull(session)
				}
			}()
			var changed []string
			if changed, full = w.changes(ctx, session); full {
				w.begin(session)
			} else if len(changed) == 0 {
				return Snapshot{Tree: st.tree}, nil
			} else if paths, err = s.sortChanged(ctx, g, changed, indexed()); err != nil {
				return Snapshot{}, err
			}
		}
	}
	var leave []string
	if full && fresh {
		// Every file git sees: untracked ones that are not ignored (the
		// index is empty, or seeded and then broken).
		out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard", "--"}, spec...)...)
		if err != nil {
			return Snapshot{}, err
		}
		paths = splitZ(out)
	} else if full {
		if paths, leave, err = s.readAgain(ctx, g, ignoredCached, watchListed); err != nil {
			return Snapshot{}, err
		}
	}
	if fresh && s.userGit != "" {
		// The repository's tracked files are there even when ignored.
		tracked, err := s.userTracked(ctx)
		if err != nil {
			return Snapshot{}, err
		}
		paths = append(paths, tracked...)
	}
	if len(paths) > s.maxN {
		return Snapshot{}, fmt.Errorf("%w: %d new or changed files, more than %d", ErrTooManyFiles, len(paths), s.maxN)
	}
	if len(paths) == 0 && len(leave) == 0 && st.tree != "" {
		return Snapshot{Tree: st.tree}, nil
	}
	var add, drop []string
	var snap Snapshot
	drop = append(drop, leave...)
	seen := map[string]bool{}
	dirs := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if s.exclude != nil && s.exclude(s.rel(strings.TrimSuffix(p, "/"))) {
			drop = append(drop, strings.TrimSuffix(p, "/"))
			continue
		}
		if strings.HasSuffix(p, "/") {
			snap.Skipped = append(snap.Skipped, Skipped{Path: s.rel(strings.TrimSuffix(p, "/")), Reason: "a nested git repository"})
			continue
		}
		if s.beyondLink(p, dirs) {
			// A directory the index had is a symbolic link (or a file)
			// now: what was beneath it is gone from the view, and git
			// refuses the path.
			drop = append(drop, p)
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(p)))
		switch {
		case err == nil && fi.Mode().IsRegular() && fi.Size() > s.maxFile:
			snap.Skipped = append(snap.Skipped, Skipped{Path: s.rel(p), Reason: fmt.Sprintf("larger than %s", sizeName(s.maxFile))})
			drop = append(drop, p)
			continue
		case err == nil && fi.IsDir():
			// A file the index holds that is a directory now (its files
			// are listed on their own): its entry goes. A nested
			// repository's was left out above.
			drop = append(drop, p)
			continue
		case err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
			// A FIFO, a socket, a device (the watch names them): git
			// cannot store one, and a full read never lists one.
			drop = append(drop, p)
			continue
		case err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o444 != 0o444 && !readable(filepath.Join(s.top, filepath.FromSlash(p))):
			snap.Skipped = append(snap.Skipped, Skipped{Path: s.rel(p), Reason: "unreadable"})
			drop = append(drop, p)
			continue
		}
		add = append(add, p)
	}
	if x := indexed(); x != nil {
		tree, err := s.writeInProcess(ctx, x, index, add, drop)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Tree = tree
		slices.SortFunc(snap.Skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
		return snap, nil
	}
	if err := s.stageWithGit(ctx, g, add, drop); err != nil {
		return Snapshot{}, err
	}
	tree, err := g.Run(ctx, "write-tree")
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", errBrokenIndex, err)
		}
		return Snapshot{}, err
	}
	snap.Tree = strings.TrimSpace(tree)
	slices.SortFunc(snap.Skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return snap, nil
}

// stageWithGit stages add and removes drop's entries in g's index (git
// update-index), as writeInProcess does without git.
func (s *Store) stageWithGit(ctx context.Context, g gitcmd.Cmd, add, drop []string) error {
	if len(add) > 0 {
		if _, err := withStdin(g, strings.NewReader(strings.Join(add, "\x00")+"\x00")).Run(ctx, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return err
		}
	}
	if len(drop) > 0 {
		if _, err := withStdin(g, strings.NewReader(strings.Join(drop, "\x00")+"\x00")).Run(ctx, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

// pathspec limits git to the working directory.
func (s *Store) pathspec() []string {
	if s.prefix == "" {
		return []string{"."}
	}
	return []string{":(literal)" + s.prefix}
}

// rel is the work-tree path p relative to the working directory.
func (s *Store) rel(p string) string {
	if s.prefix == "" {
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, s.prefix), "/")
}

// splitZ splits git's NUL-terminated output.
func splitZ(out string) []string {
	out = strings.TrimSuffix(out, "\x00")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\x00")
}

// validName reports whether n can name a session or a checkpoint in a
// ref.
func validName(n string) bool {
	if n == "" || len(n) > 100 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// readable reports whether the file at p can be opened for reading (git
// would fail the whole checkpoint on one it cannot read: a file root made
// in the project). Take asks only of files not readable by everyone.
func readable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) // gone: update-index removes it
	}
	f.Close()
	return true
}

// sizeName says n bytes the way a person reads it.
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
