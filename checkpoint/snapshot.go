package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-dev/agent/gitcmd"
)

// Snapshot is a checkpoint just taken.
type Snapshot struct {
	// Tree is the checkpoint: the id of a git tree in the store (40 hex
	// digits), the working directory's files as git would see them.
	Tree string
	// Skipped are the files left out of it, and why, sorted by path.
	Skipped []Skipped
	// Rehashed is how many files were read and stored because they
	// changed (or were seen for the first time).
	Rehashed int
	// Took is how long taking it took.
	Took time.Duration
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
// refs/agent/SESSION/NAME, replacing the tree name held before. It
// reads what changed since the session's last checkpoint (its first one
// starts from the index of the project's latest session, so a new
// session does not read every file again), stores the changed files'
// content, and writes the tree. Files git ignores, .git and files larger
// than the size cap are left out. Cancelling ctx stops git; the
// checkpoint is then not taken.
func (s *Store) Take(ctx context.Context, session, name string) (Snapshot, error) {
	start := time.Now()
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
	snap, err := s.take(ctx, session, index, fresh, st)
	if errors.Is(err, errBrokenIndex) && !fresh {
		// The index names content the store no longer has (it was
		// seeded from a session forgotten meanwhile, whose content was
		// pruned): the tree is read afresh.
		if rerr := os.Remove(index); rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
			snap, err = s.take(ctx, session, index, true, st)
		}
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("taking a checkpoint of %s: %w", s.dir, err)
	}
	if err := s.keep(ctx, session, name, snap.Tree); err != nil {
		return Snapshot{}, fmt.Errorf("taking a checkpoint of %s: %w", s.dir, err)
	}
	st.tree = snap.Tree
	snap.Took = time.Since(start)
	return snap, nil
}

func (s *Store) take(ctx context.Context, session, index string, fresh bool, st *sessionState) (_ Snapshot, err error) {
	if err := s.syncExclude(); err != nil {
		return Snapshot{}, err
	}
	g := s.git(index)
	spec := s.pathspec()
	var paths []string
	full := true
	if st.tree != "" && !fresh {
		if w := s.watcher(ctx, g, session); w != nil {
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
			} else if paths, err = s.sortChanged(ctx, g, changed); err != nil {
				return Snapshot{}, err
			}
		}
	}
	if full {
		// What changed since the index: untracked files that are not
		// ignored, tracked ones whose size or time changed, tracked ones
		// removed.
		out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard", "--"}, spec...)...)
		if err != nil {
			return Snapshot{}, err
		}
		paths = splitZ(out)
	}
	var leave []string
	if full && !fresh {
		if leave, err = s.leftView(ctx, g, spec); err != nil {
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
	var add, drop bytes.Buffer
	var snap Snapshot
	for _, p := range leave {
		drop.WriteString(p + "\x00")
	}
	seen := map[string]bool{}
	dirs := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if s.exclude != nil && s.exclude(s.rel(strings.TrimSuffix(p, "/"))) {
			drop.WriteString(strings.TrimSuffix(p, "/") + "\x00")
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
			drop.WriteString(p + "\x00")
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(p)))
		switch {
		case err == nil && fi.Mode().IsRegular() && fi.Size() > s.maxFile:
			snap.Skipped = append(snap.Skipped, Skipped{Path: s.rel(p), Reason: fmt.Sprintf("larger than %s", sizeName(s.maxFile))})
			drop.WriteString(p + "\x00")
			continue
		case err == nil && fi.IsDir():
			// A file the index holds that is a directory now (its files
			// are listed on their own): its entry goes. A nested
			// repository's was left out above.
			drop.WriteString(p + "\x00")
			continue
		case err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
			// A FIFO, a socket, a device (the watch names them): git
			// cannot store one, and a full read never lists one.
			drop.WriteString(p + "\x00")
			continue
		case err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o444 != 0o444 && !readable(filepath.Join(s.top, filepath.FromSlash(p))):
			snap.Skipped = append(snap.Skipped, Skipped{Path: s.rel(p), Reason: "unreadable"})
			drop.WriteString(p + "\x00")
			continue
		}
		add.WriteString(p + "\x00")
		snap.Rehashed++
	}
	if add.Len() > 0 {
		if _, err := (withStdin(g, &add)).Run(ctx, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	if drop.Len() > 0 {
		if _, err := (withStdin(g, &drop)).Run(ctx, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	tree, err := g.Run(ctx, "write-tree")
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", errBrokenIndex, err)
		}
		return Snapshot{}, err
	}
	snap.Tree = strings.TrimSpace(tree)
	return snap, nil
}

// leftView lists the files the session's index holds that a fresh read
// would leave out: those git now ignores that the user's repository does
// not track, and those in a directory that became a nested repository.
func (s *Store) leftView(ctx context.Context, g gitcmd.Cmd, spec []string) ([]string, error) {
	out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--ignored", "--exclude-standard", "--"}, spec...)...)
	if err != nil {
		return nil, err
	}
	var leave []string
	if ignored := splitZ(out); len(ignored) > 0 {
		tracked := map[string]bool{}
		if s.userGit != "" {
			out, err := userGit(s.top).Run(ctx, append([]string{"-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--"}, spec...)...)
			if err != nil {
				return nil, err
			}
			for _, p := range splitZ(out) {
				tracked[p] = true
			}
		}
		for _, p := range ignored {
			if !tracked[p] {
				leave = append(leave, p)
			}
		}
	}
	out, err = g.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--"}, spec...)...)
	if err != nil {
		return nil, err
	}
	nested := map[string]bool{}
	for _, p := range splitZ(out) {
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			is, ok := nested[d]
			if !ok {
				_, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(d), ".git"))
				is = err == nil
				nested[d] = is
			}
			if is {
				leave = append(leave, p)
				break
			}
		}
	}
	return leave, nil
}

// sortChanged turns the work-tree paths the watch saw change into the
// paths the index must take again, without reading the whole tree: the
// files there that git does not ignore (tracked ones are never ignored),
// and the index's entries at or beneath the paths that are gone or are
// directories (made, moved or removed as a whole: what the index had
// there may be gone, and a file a directory replaced is); the watch names
// the files made in them.
func (s *Store) sortChanged(ctx context.Context, g gitcmd.Cmd, changed []string) ([]string, error) {
	var there, gone, beyond []string
	dirs := map[string]bool{}
	for _, p := range changed {
		fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(p)))
		switch {
		case s.beyondLink(p, dirs):
			beyond = append(beyond, p) // take drops it
		case err != nil || fi.IsDir():
			gone = append(gone, ":(literal)"+p)
		case !s.inNested(p):
			there = append(there, p)
		}
	}
	paths := beyond
	if len(gone) > 0 {
		out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--"}, gone...)...)
		if err != nil {
			return nil, err
		}
		paths = append(paths, splitZ(out)...)
	}
	if len(there) > 0 {
		in := strings.Join(there, "\x00") + "\x00"
		out, code, err := withStdin(g, strings.NewReader(in)).Status(ctx, "check-ignore", "-z", "--stdin")
		if err != nil {
			return nil, err
		}
		if code > 1 {
			return nil, fmt.Errorf("git check-ignore: exit status %d", code)
		}
		ignored := map[string]bool{}
		for _, p := range splitZ(out) {
			ignored[p] = true
		}
		for _, p := range there {
			if !ignored[p] {
				paths = append(paths, p)
			}
		}
	}
	return paths, nil
}

// beyondLink reports whether a directory above the work-tree path p is
// not a directory now (a symbolic link, a file); dirs caches the answers
// for the directories seen (true: a real directory).
func (s *Store) beyondLink(p string, dirs map[string]bool) bool {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		ok, known := dirs[d]
		if !known {
			fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(d)))
			ok = err != nil || fi.IsDir() // a missing one: p is gone, which git takes
			dirs[d] = ok
		}
		if !ok {
			return true
		}
	}
	return false
}

// inNested reports whether the work-tree path p lies in a nested git
// repository (a directory beneath the top level with a .git entry), which
// checkpoints leave out as a full read does.
func (s *Store) inNested(p string) bool {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(d), ".git")); err == nil {
			return true
		}
	}
	return false
}

// watcher returns the store's watch, starting it (with session
// collecting changes from then on) when there is none yet; nil without
// Options.Watch or when no watch is possible. g is a git command on
// session's index, which names the directories git ignores as a whole:
// those are not watched.
func (s *Store) watcher(ctx context.Context, g gitcmd.Cmd, session string) *watcher {
	s.mu.Lock()
	w := s.watch
	if w != nil && w.isStale() {
		s.watch = nil // what git ignores changed: watched again from scratch
	} else {
		w = nil
	}
	try := s.watching && s.watch == nil && !s.watchFailed
	cur := s.watch
	s.mu.Unlock()
	if w != nil {
		w.close()
	}
	if !try {
		return cur
	}
	out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--others", "--ignored", "--directory", "--exclude-standard", "--"}, s.pathspec()...)...)
	if err != nil {
		return nil
	}
	var ignored []string
	for _, p := range splitZ(out) {
		if strings.HasSuffix(p, "/") {
			ignored = append(ignored, p)
		}
	}
	w = startWatch(s, ignored)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w == nil || s.watch != nil || s.watchFailed {
		if w != nil {
			w.close()
		}
		s.watchFailed = s.watchFailed || w == nil
		return s.watch
	}
	s.watch = w
	return w
}

// checkSize refuses, with ErrTooManyFiles, a working directory outside
// any git repository that holds more than the file limit (a home
// directory): git would read all of it before the first checkpoint could
// refuse it. It counts once per store, stopping at the limit.
func (s *Store) checkSize() error {
	if s.userGit != "" {
		return nil
	}
	s.sizeOnce.Do(func() {
		n := 0
		filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if n++; n > s.maxN {
				s.sizeErr = fmt.Errorf("%w: more than %d files in %s, outside any git repository", ErrTooManyFiles, s.maxN, s.dir)
				return filepath.SkipAll
			}
			return nil
		})
	})
	return s.sizeErr
}

// keep points refs/agent/SESSION/NAME at tree.
func (s *Store) keep(ctx context.Context, session, name, tree string) error {
	_, err := s.git("").Run(ctx, "update-ref", "refs/agent/"+session+"/"+name, tree)
	return err
}

// Keep keeps trees (from another session's checkpoints: a fork's) under
// session's refs, name[i] for trees[i], so that they outlive the session
// they were taken in.
func (s *Store) Keep(ctx context.Context, session string, names, trees []string) error {
	if len(names) != len(trees) {
		return fmt.Errorf("keeping %d checkpoints under %d names", len(trees), len(names))
	}
	var in bytes.Buffer
	for i, t := range trees {
		if !validName(names[i]) || !validName(session) {
			return fmt.Errorf("checkpoint %q of session %q: not a valid name", names[i], session)
		}
		fmt.Fprintf(&in, "update refs/agent/%s/%s %s\n", session, names[i], t)
	}
	if in.Len() == 0 {
		return nil
	}
	if _, err := withStdin(s.git(""), &in).Run(ctx, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("keeping the checkpoints of session %s: %w", session, err)
	}
	return nil
}

// seedIndex copies the most recently written index of the store to index,
// so a new session's first checkpoint reads only what changed since
// another session's last one. It reports whether it did.
func (s *Store) seedIndex(index string) bool {
	dir := filepath.Dir(index)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var newest string
	var when time.Time
	for _, e := range entries {
		fi, err := e.Info()
		// A lock is git's index being written; a dot file another
		// session's copy being made.
		if err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(e.Name(), ".lock") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi.ModTime().After(when) {
			newest, when = e.Name(), fi.ModTime()
		}
	}
	if newest == "" {
		return false
	}
	src, err := os.Open(filepath.Join(dir, newest))
	if err != nil {
		return false
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".seed-*")
	if err != nil {
		return false
	}
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), index)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}

// userTracked lists the files the user's repository tracks in the
// working directory, reading its index (never writing it).
func (s *Store) userTracked(ctx context.Context) ([]string, error) {
	// Its config is read but may run nothing here (a .git that came in an
	// archive may name a file system monitor).
	out, err := userGit(s.top).Run(ctx, append([]string{"-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--"}, s.pathspec()...)...)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, p := range splitZ(out) {
		if fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(p))); err == nil && !fi.IsDir() {
			keep = append(keep, p)
		}
	}
	return keep, nil
}

// syncExclude copies the user's .git/info/exclude into the store, so the
// files the person told git to ignore there are left out too. A change
// since this store last read it is a change of what git ignores to the
// watch.
func (s *Store) syncExclude() error {
	var want []byte
	if s.userGit != "" {
		b, err := os.ReadFile(filepath.Join(s.userGit, "info", "exclude"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		want = b
	}
	s.mu.Lock()
	changed := s.excludeRead && !bytes.Equal(s.excludeSeen, want)
	s.excludeSeen, s.excludeRead = want, true
	w := s.watch
	s.mu.Unlock()
	if changed && w != nil {
		w.ignoreChanged()
	}
	p := filepath.Join(s.gitDir, "info", "exclude")
	have, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if bytes.Equal(have, want) {
		return nil
	}
	return os.WriteFile(p, want, 0o600)
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

// full is the working-directory path p relative to the work tree.
func (s *Store) full(p string) string {
	if s.prefix == "" {
		return p
	}
	return path.Join(s.prefix, p)
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
