package checkpoint

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Plan is what restoring a checkpoint would do, for a preview and for
// Apply.
type Plan struct {
	// From is the tree of the working directory as the plan found it; To
	// the checkpoint's.
	From, To string
	// Changes are the files restoring writes or removes.
	Changes []Change
	// Kept are files that differ but were changed outside the agent since
	// the checkpoint: restored only when forced.
	Kept []Change
	// Protected are files that differ but are never written: git
	// metadata, the project's agent configuration, the agent's own files,
	// and files that exist now but that the working directory's view
	// leaves out (ignored, too large, a nested repository).
	Protected []Change
}

// Applied is what Apply did.
type Applied struct {
	// Changes are the files written or removed.
	Changes []Change
}

// PlanRestore plans restoring tree to over the working directory, whose
// current state is tree from: outside are the paths changed outside the
// agent since the checkpoint (they go to Kept), and protected says
// whether a path may never be written (it goes to Protected).
func (s *Store) PlanRestore(ctx context.Context, from, to string, outside []string, protected func(rel string) bool) (Plan, error) {
	changes, err := s.Diff(ctx, from, to)
	if err != nil {
		return Plan{}, err
	}
	out := map[string]bool{}
	for _, p := range outside {
		out[p] = true
	}
	// Where each change goes on its own account, then a file coming back
	// where something else stands now goes where what stands there goes:
	// a directory whose files the restore removes (or a file or link in
	// its way, for one beneath it) is cleared only with them; anything
	// else there is out of the view, and stays.
	bucket := make([]int, len(changes))
	deleted := map[string]int{} // the Delete changes' indexes by path
	for i, c := range changes {
		switch {
		case protected != nil && protected(c.Path):
			bucket[i] = inProtected
		case out[c.Path]:
			bucket[i] = inKept
		}
		if c.Action == Delete {
			deleted[c.Path] = i
		}
	}
	for i, c := range changes {
		if c.Action == Create {
			bucket[i] = max(bucket[i], s.blocked(c.Path, changes, deleted, bucket))
		}
	}
	p := Plan{From: from, To: to}
	for i, c := range changes {
		switch bucket[i] {
		case inProtected:
			p.Protected = append(p.Protected, c)
		case inKept:
			p.Kept = append(p.Kept, c)
		default:
			p.Changes = append(p.Changes, c)
		}
	}
	return p, nil
}

// The plan's lists, in the order a change's reasons override each other.
const (
	inChanges = iota
	inKept
	inProtected
)

// blocked says which of the plan's lists a file coming back at rel must
// go to because of what stands at rel, or at a directory above it, now
// (inChanges: nothing). It reads the working directory one component at a
// time, never following a symbolic link.
func (s *Store) blocked(rel string, changes []Change, deleted map[string]int, bucket []int) int {
	parts := strings.Split(rel, "/")
	p := s.dir
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return inChanges // nothing there: the file can be made
		}
		at := strings.Join(parts[:i+1], "/")
		if !fi.IsDir() {
			if j, ok := deleted[at]; ok && i < len(parts)-1 {
				return bucket[j] // a file in the way that the restore removes
			}
			return inProtected // there but out of the view: ignored, too large
		}
		if i < len(parts)-1 {
			continue
		}
		// A directory where the file comes back: cleared only when the
		// restore removes every file beneath it, and only with them (one
		// it would leave, ignored or a nested repository's, keeps the
		// directory there).
		worst, removed, stays := inChanges, false, false
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			r, err := filepath.Rel(s.dir, q)
			if err != nil {
				return err
			}
			j, ok := deleted[filepath.ToSlash(r)]
			if !ok {
				stays = true
				return fs.SkipAll
			}
			worst, removed = max(worst, bucket[j]), true
			return nil
		})
		if err != nil || stays || !removed {
			return inProtected
		}
		return worst
	}
	return inChanges
}

// Apply restores p's Changes (and its Kept files when force) through
// root, the working directory: removals first, then the directories they
// emptied that the checkpoint does not have, then each file written to a
// temporary file beside it and renamed over it, with the checkpoint's
// executable bit (symbolic links made again). Protected files are never
// written. A failure stops Apply and names the file; the files done
// before it stay restored (the caller's checkpoint of the state before
// restores them back). Cancelling ctx stops it between two files.
func (s *Store) Apply(ctx context.Context, root *os.Root, p Plan, force bool) (Applied, error) {
	todo := p.Changes
	if force {
		todo = append(append([]Change(nil), p.Changes...), p.Kept...)
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].Path < todo[j].Path })
	var done Applied
	var removed []string
	for _, c := range todo {
		if c.Action != Delete {
			continue
		}
		if err := ctx.Err(); err != nil {
			return done, err
		}
		if err := root.Remove(filepath.FromSlash(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return done, fmt.Errorf("removing %s: %w", c.Path, err)
		}
		removed = append(removed, c.Path)
		done.Changes = append(done.Changes, c)
	}
	if err := s.pruneDirs(ctx, root, p.To, removed); err != nil {
		return done, err
	}
	var writes []Change
	for _, c := range todo {
		if c.Action != Delete {
			writes = append(writes, c)
		}
	}
	if len(writes) == 0 {
		return done, nil
	}
	blobs, err := s.openBlobs(ctx)
	if err != nil {
		return done, err
	}
	defer blobs.close()
	for _, c := range writes {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		data, err := blobs.read(c.blob)
		if err != nil {
			return done, fmt.Errorf("reading %s from the checkpoint: %w", c.Path, err)
		}
		if err := writeEntry(root, c.Path, c.mode, data); err != nil {
			return done, fmt.Errorf("restoring %s: %w", c.Path, err)
		}
		done.Changes = append(done.Changes, c)
	}
	return done, nil
}

// pruneDirs removes the directories that removing paths left empty and
// that tree does not have, deepest first.
func (s *Store) pruneDirs(ctx context.Context, root *os.Root, tree string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	out, err := s.git("").Run(ctx, append([]string{"ls-tree", "-r", "-d", "-z", "--name-only", tree, "--"}, s.pathspec()...)...)
	if err != nil {
		return fmt.Errorf("listing the checkpoint's directories: %w", err)
	}
	keep := map[string]bool{}
	for _, d := range splitZ(out) {
		keep[s.rel(d)] = true
	}
	dirs := map[string]bool{}
	for _, p := range paths {
		for d := path.Dir(p); d != "." && d != "/" && !keep[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return strings.Count(list[i], "/") > strings.Count(list[j], "/") })
	for _, d := range list {
		root.Remove(filepath.FromSlash(d)) // only an empty one goes
	}
	return nil
}

// writeEntry writes data at the slash path p under root as a git tree
// entry of mode: a regular file (100644, 100755: the executable bits set
// or cleared, other permission bits kept when the file exists) or a
// symbolic link (120000, data its target).
func writeEntry(root *os.Root, p, mode string, data []byte) error {
	name := filepath.FromSlash(p)
	if dir := path.Dir(p); dir != "." {
		if fi, err := root.Lstat(filepath.FromSlash(dir)); err == nil && !fi.IsDir() {
			if err := root.Remove(filepath.FromSlash(dir)); err != nil {
				return err
			}
		}
		if err := root.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return err
		}
	}
	old, err := root.Lstat(name)
	exists := err == nil
	if exists && old.IsDir() {
		// Emptied by the removals before it; one that is not (an ignored
		// file in it) stays, and the restore stops here.
		if err := root.Remove(name); err != nil {
			return err
		}
		exists = false
	}
	if mode == "120000" {
		if exists {
			if err := root.Remove(name); err != nil {
				return err
			}
		}
		return root.Symlink(string(data), name)
	}
	m, err := strconv.ParseUint(mode, 8, 32)
	if err != nil || m&0o170000 != 0o100000 {
		return fmt.Errorf("cannot restore an entry of mode %s", mode)
	}
	perm := fs.FileMode(0o644)
	if exists && old.Mode().IsRegular() {
		perm = old.Mode().Perm() &^ 0o111
	}
	if m&0o111 != 0 {
		perm |= (perm & 0o444) >> 2 // executable wherever readable
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := filepath.FromSlash(path.Join(path.Dir(p), ".agent-rewind-"+hex.EncodeToString(rnd[:])))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, perm)
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// blobReader reads blobs from the store through one git cat-file --batch.
type blobReader struct {
	in   io.WriteCloser
	out  *bufio.Reader
	wait func() error
}

func (s *Store) openBlobs(ctx context.Context) (*blobReader, error) {
	cmd := s.git("").Start(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &blobReader{in: in, out: bufio.NewReader(out), wait: cmd.Wait}, nil
}

// read returns the content of blob id.
func (b *blobReader) read(id string) ([]byte, error) {
	if _, err := io.WriteString(b.in, id+"\n"); err != nil {
		return nil, err
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return nil, fmt.Errorf("object %s: %s", id, strings.TrimSpace(header))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("object %s: %s", id, strings.TrimSpace(header))
	}
	data := make([]byte, n+1) // and the newline after it
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, err
	}
	return data[:n], nil
}

func (b *blobReader) close() {
	b.in.Close()
	io.Copy(io.Discard, b.out)
	b.wait()
}
