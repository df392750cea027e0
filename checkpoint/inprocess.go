package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/gitfmt"
)

// The steps of a checkpoint taken without a git process (gitfmt): the
// session's index read, the changed files stored and staged, the trees
// and the index written, and what changed between two trees this process
// wrote. What git alone knows (which files it ignores, which it finds
// modified in a full read) is still asked of git. A store in another
// object format, an index gitfmt does not read, or a system whose stat it
// cannot take goes through git, as before.

// racyWindow is how far the file system's clock may lag the time a file
// was read: a file changed again after it was read, in the same tick of
// that clock or in the same second (git compares an entry's times in
// whole seconds), would keep the time and size the entry holds. The entry
// of a file whose time is in the second it was read in (less this window)
// has its size set to 0, which git takes as "compare the content" (git's
// racy-git smudge, gitformat-index(5)).
var racyWindow = 100 * time.Millisecond

// readTime is the time a checkpoint read a file at (a test's clock).
var readTime = time.Now

// inProcess reports whether the store's index and objects may be written
// in process: a SHA-1 store (its config names no other object format) on
// a system whose stat gitfmt reads.
func (s *Store) inProcess() bool {
	s.formatOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(s.gitDir, "config"))
		if err != nil || bytes.Contains(bytes.ToLower(b), []byte("objectformat")) {
			return
		}
		fi, err := os.Lstat(s.gitDir)
		if err != nil {
			return
		}
		_, s.inProc = gitfmt.StatOf(fi)
	})
	return s.inProc
}

// readIndex reads session's index in process: an empty one when there is
// none; nil when git must read it (gitfmt does not know it, it is
// damaged: git's own error then names the trouble).
func (s *Store) readIndex(index string) *gitfmt.Index {
	if !s.inProcess() {
		return nil
	}
	x, err := gitfmt.ReadIndex(index)
	switch {
	case err == nil:
		return x
	case errors.Is(err, fs.ErrNotExist):
		return &gitfmt.Index{}
	}
	return nil
}

// writeInProcess stages add (work-tree paths: the file there now is
// stored and its entry set; a path with nothing there loses its entry)
// and removes drop's entries in x, then writes the trees and the index
// file and returns the top tree's id. It fails when a file cannot be
// read or an object or the index cannot be written, and with ctx's error
// when it is cancelled before the index is written (the index is then
// unchanged).
func (s *Store) writeInProcess(ctx context.Context, x *gitfmt.Index, index string, add, drop []string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(s.top)
	if err != nil {
		return "", err
	}
	defer root.Close()
	objs := gitfmt.Objects{Dir: filepath.Join(s.gitDir, "objects")}
	// The files are read, hashed and deflated by a few at once: a
	// session's first checkpoint stores every file.
	staged := make([]gitfmt.Entry, len(add))
	found := make([]bool, len(add))
	var g errgroup.Group
	g.SetLimit(stagers)
	for i, p := range add {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			staged[i], found[i], err = stage(root, objs, p)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	var set []gitfmt.Entry
	remove := slices.Clip(drop) // after the files staged: a path in both goes
	for i, p := range add {
		if found[i] {
			set = append(set, staged[i])
		} else {
			remove = append(remove, p)
		}
	}
	x.Apply(set, remove)
	id, err := x.WriteTree(objs)
	if errors.Is(err, gitfmt.ErrMissing) {
		// Packed (a gc in the store), which gitfmt does not read, or
		// gone: git writes the tree of the index as staged, or refuses it.
		return s.writeTreeWithGit(ctx, x, index)
	}
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := x.WriteFile(index); err != nil {
		return "", err
	}
	tree := id.String()
	s.remember(tree, x.Entries)
	return tree, nil
}

// writeTreeWithGit writes the index x and has git write its tree, for an
// index naming an object gitfmt does not find loose. It fails with
// errBrokenIndex when git finds the object nowhere.
func (s *Store) writeTreeWithGit(ctx context.Context, x *gitfmt.Index, index string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := x.WriteFile(index); err != nil {
		return "", err
	}
	tree, err := s.git(index).Run(ctx, "write-tree")
	if err != nil {
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", errBrokenIndex, err)
		}
		return "", err
	}
	return strings.TrimSpace(tree), nil
}

// stagers is how many files writeInProcess stores at once.
const stagers = 4

// stage stores the file at the work-tree path p and returns its entry (git
// update-index --add), reading it through root: a directory above it
// swapped for a link out of the tree is refused. ok is false when nothing
// git holds is there (the entry goes: --remove).
func stage(root *os.Root, objs gitfmt.Objects, p string) (_ gitfmt.Entry, ok bool, _ error) {
	name := filepath.FromSlash(p)
	for try := 0; ; try++ {
		fi, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return gitfmt.Entry{}, false, nil
		}
		if err != nil {
			return gitfmt.Entry{}, false, fmt.Errorf("reading %s: %w", p, err)
		}
		mode, ok := gitfmt.ModeOf(fi)
		if !ok {
			return gitfmt.Entry{}, false, nil // a directory, a FIFO: git holds none
		}
		data, st, err := content(root, name, fi, mode)
		if errors.Is(err, errReplaced) && try < 3 {
			continue // changed under the read: read again
		}
		if err != nil {
			return gitfmt.Entry{}, false, fmt.Errorf("reading %s: %w", p, err)
		}
		id, err := objs.Write("blob", data)
		if err != nil {
			return gitfmt.Entry{}, false, err
		}
		mtime := time.Unix(int64(st.MtimeSec), int64(st.MtimeNsec))
		if mtime.Unix() >= readTime().Add(-racyWindow).Unix() {
			st.Size = 0
		}
		return gitfmt.Entry{Path: p, Mode: mode, ID: id, Stat: st}, true, nil
	}
}

// errReplaced is content's finding that the file at the path is not the one
// lstat saw.
var errReplaced = errors.New("replaced while read")

// content reads what git stores for the file at name, which lstat
// found to be fi with mode: a link's target, a file's bytes. The stat is
// that of the file read.
func content(root *os.Root, name string, fi fs.FileInfo, mode uint32) ([]byte, gitfmt.Stat, error) {
	if mode == gitfmt.ModeSymlink {
		target, err := root.Readlink(name)
		if err != nil {
			return nil, gitfmt.Stat{}, err
		}
		after, err := root.Lstat(name)
		if err != nil || !os.SameFile(fi, after) || after.ModTime() != fi.ModTime() {
			return nil, gitfmt.Stat{}, errReplaced
		}
		st, _ := gitfmt.StatOf(after)
		return []byte(target), st, nil
	}
	// Non-blocking: a FIFO swapped in after the lstat opens at once (and
	// is not the file lstat saw) rather than waiting for a writer.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, gitfmt.Stat{}, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, gitfmt.Stat{}, err
	}
	if !os.SameFile(fi, opened) || !opened.Mode().IsRegular() {
		// A link now, another file, or a FIFO (its inode may be the
		// removed file's, freed and taken again).
		return nil, gitfmt.Stat{}, errReplaced
	}
	data := make([]byte, 0, opened.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, gitfmt.Stat{}, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	st, _ := gitfmt.StatOf(opened)
	return data, st, nil
}

// maxRemembered is how many trees' entries the store keeps for Changed,
// and maxRememberedEntries the most entries it keeps in all.
const (
	maxRemembered        = 3
	maxRememberedEntries = 300_000
)

// remembered is a tree this process wrote and the entries it holds.
type remembered struct {
	tree    string
	entries []gitfmt.Entry
}

// remember keeps the entries of tree for Changed, the tree used last
// first.
func (s *Store) remember(tree string, entries []gitfmt.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []remembered{{tree, entries}}
	total := len(entries)
	for _, r := range s.trees {
		if r.tree != tree && len(list) < maxRemembered && total+len(r.entries) <= maxRememberedEntries {
			list = append(list, r)
			total += len(r.entries)
		}
	}
	s.trees = list
}

// entriesOf returns the entries of a tree the store remembers, moving it
// first.
func (s *Store) entriesOf(tree string) ([]gitfmt.Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.trees {
		if r.tree == tree {
			copy(s.trees[1:i+1], s.trees[:i])
			s.trees[0] = r
			return r.entries, true
		}
	}
	return nil, false
}

// changedInProcess lists, as Changed does, the paths whose entries differ
// between trees from and to when the store remembers both.
func (s *Store) changedInProcess(from, to string) ([]string, bool) {
	a, ok := s.entriesOf(from)
	if !ok {
		return nil, false
	}
	b, ok := s.entriesOf(to)
	if !ok {
		return nil, false
	}
	var paths []string
	add := func(p string) {
		if s.prefix == "" || strings.HasPrefix(p, s.prefix+"/") {
			paths = append(paths, s.rel(p))
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Path < b[j].Path:
			add(a[i].Path)
			i++
		case i == len(a) || b[j].Path < a[i].Path:
			add(b[j].Path)
			j++
		default:
			if a[i].Mode != b[j].Mode || a[i].ID != b[j].ID {
				add(a[i].Path)
			}
			i++
			j++
		}
	}
	return paths, true
}
