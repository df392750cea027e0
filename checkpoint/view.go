package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/gitfmt"

	"github.com/agent-dev/agent/gitcmd"
)

// What a checkpoint holds: the files git would see, read from the
// repository, the watch and the file system.

// readAgain reads what changed since the session's index (g's), in full:
// the paths the index must take again, and those leaving the view. What
// changed (untracked files that are not ignored, tracked ones whose size
// or time changed, tracked ones removed) and the index's entries come from
// one listing; beside it, unless the watch's start listed them (listed),
// the index's entries git now ignores (ignoredCached).
func (s *Store) readAgain(ctx context.Context, g gitcmd.Cmd, ignoredCached []string, listed bool) (paths, leave []string, err error) {
	spec := s.pathspec()
	var ig errgroup.Group
	if !listed {
		ig.Go(func() error {
			out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--ignored", "--exclude-standard", "--"}, spec...)...)
			ignoredCached = splitZ(out)
			return err
		})
	}
	out, err := g.Run(ctx, append([]string{"ls-files", "-z", "-t", "--cached", "--others", "--modified", "--deleted", "--exclude-standard", "--"}, spec...)...)
	if werr := ig.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		return nil, nil, err
	}
	var cached []string
	for _, rec := range splitZ(out) {
		tag, p, ok := strings.Cut(rec, " ")
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("reading git ls-files -t: %q", rec)
		case tag == "H":
			cached = append(cached, p)
		default: // C modified, R removed, ? not tracked
			paths = append(paths, p)
		}
	}
	leave, err = s.leftView(ctx, cached, ignoredCached)
	return paths, leave, err
}

// leftView lists the files the session's index holds (cached) that a
// fresh read would leave out: those git now ignores (ignored, the
// index's entries an ignore rule matches) that the user's repository does
// not track, and those in a directory that became a nested repository.
func (s *Store) leftView(ctx context.Context, cached, ignored []string) ([]string, error) {
	var leave []string
	if len(ignored) > 0 {
		tracked := map[string]bool{}
		if s.userGit != "" {
			list, err := s.userIndex(ctx)
			if err != nil {
				return nil, err
			}
			for _, p := range list {
				tracked[p] = true
			}
		}
		for _, p := range ignored {
			if !tracked[p] {
				leave = append(leave, p)
			}
		}
	}
	nested := map[string]bool{}
	for _, p := range cached {
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
// there may be gone, and a file a directory replaced is), with the files
// git does not ignore in those directories (the watch names them too).
// One git process lists them all (one per argsChunk bytes of paths). When
// the index was read in process (x), what it answers needs no git: a file
// it holds (tracked, never ignored), a path with nothing there now (what
// the index held at or beneath it); git is asked of new files and of
// directories only.
func (s *Store) sortChanged(ctx context.Context, g gitcmd.Cmd, changed []string, x *gitfmt.Index) ([]string, error) {
	var specs, paths []string
	dirs := map[string]bool{}
	for _, p := range changed {
		fi, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(p)))
		switch {
		case s.beyondLink(p, dirs):
			paths = append(paths, p) // take drops it
		case x != nil && err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
			if x.Has(p) {
				paths = append(paths, p)
			}
			for _, e := range x.Under(p) {
				paths = append(paths, e.Path)
			}
		case x != nil && err == nil && !fi.IsDir() && !s.inNested(p) && x.Has(p):
			paths = append(paths, p)
			for _, e := range x.Under(p) {
				paths = append(paths, e.Path) // a directory it replaced
			}
		case err != nil || fi.IsDir() || !s.inNested(p):
			specs = append(specs, ":(literal)"+p)
		}
	}
	for len(specs) > 0 {
		n, size := 0, 0
		for n < len(specs) && (n == 0 || size+len(specs[n]) < argsChunk) {
			size += len(specs[n]) + 1
			n++
		}
		out, err := g.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, specs[:n]...)...)
		if err != nil {
			return nil, err
		}
		paths = append(paths, splitZ(out)...)
		specs = specs[n:]
	}
	return paths, nil
}

// argsChunk is the most bytes of paths one git command line takes (Linux
// allows 128 KiB per argument and 2 MiB in all).
const argsChunk = 64 << 10

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

// userIndex lists the entries of the user's repository's index in the
// working directory (never writing it).
func (s *Store) userIndex(ctx context.Context) ([]string, error) {
	// Its config is read but may run nothing here (a .git that came in an
	// archive may name a file system monitor).
	out, err := userGit(s.top).Run(ctx, append([]string{"-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--"}, s.pathspec()...)...)
	return splitZ(out), err
}

// userTracked lists the files the user's repository tracks in the
// working directory that are there (not a directory now).
func (s *Store) userTracked(ctx context.Context) ([]string, error) {
	list, err := s.userIndex(ctx)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, p := range list {
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
