package fs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// errSwapped is the error for a path a part of which changed while it was
// being opened (a directory replaced by a symlink, or the other way round):
// someone is racing the tool, and nothing is read or written.
var errSwapped = errors.New("a part of the path changed while it was being opened (a directory or symlink was replaced); nothing was read or written, try again")

// target is a file of the working directory reached by one resolution: the
// directory that holds it, opened, and its name there. The protected-path
// check reads real, and the read or write then goes through dir by base
// alone, so no symlink swapped in between can change what is reached (the
// check-then-write race of issue 42).
type target struct {
	// dir is the directory the walk ended in, opened; the file lies in it,
	// or below it through missing (directories a new file needs).
	dir *os.Root
	// missing are the names of the directories between dir and base that
	// do not exist yet.
	missing []string
	// base is the file's name in its directory.
	base string
	// real is the file's slash path relative to the working directory,
	// with every symlink resolved.
	real string
	// fi is what base is in dir (never a symlink), nil when it does not
	// exist.
	fi fs.FileInfo
	// link is set when the last part of the path as given was a symlink.
	link bool
}

// target resolves rel (a clean slash path relative to the root, not ".")
// one part at a time: each directory is opened from the one before it (and
// checked to be the very directory its name showed, os.SameFile), each
// symlink is read and followed by hand inside the working directory, at
// most maxLinks of them. A link that leads outside, a loop, or a part
// swapped while it was opened is an error. The caller closes the target.
func (w *workdir) target(rel string) (*target, error) {
	cur, err := w.root.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	parts := strings.Split(rel, "/")
	done, hops, link := ".", 0, false
	fail := func(err error) (*target, error) {
		cur.Close()
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	for len(parts) > 0 {
		name := parts[0]
		if name == "." || name == "" {
			parts = parts[1:]
			continue
		}
		fi, err := cur.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			last := len(parts) - 1
			return &target{dir: cur, missing: parts[:last], base: parts[last], real: path.Join(append([]string{done}, parts...)...), link: link && last == 0}, nil
		case err != nil:
			return fail(err)
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > maxLinks {
				return fail(syscall.ELOOP)
			}
			dest, err := cur.Readlink(name)
			if err != nil {
				return fail(err)
			}
			tr, ok := w.linkTarget(done, dest)
			if !ok {
				return fail(errors.New("path escapes from parent"))
			}
			link = len(parts) == 1
			// Start again from the root with the link replaced by its
			// target.
			next, err := w.root.OpenRoot(".")
			if err != nil {
				return fail(err)
			}
			cur.Close()
			cur, done, parts = next, ".", append(strings.Split(tr, "/"), parts[1:]...)
			continue
		case len(parts) == 1:
			return &target{dir: cur, base: name, real: join(done, name), fi: fi, link: link}, nil
		case !fi.IsDir():
			return fail(syscall.ENOTDIR)
		}
		next, err := openDirAs(cur, name, fi)
		if err != nil {
			return fail(err)
		}
		cur.Close()
		cur, done, parts = next, join(done, name), parts[1:]
		link = false
	}
	// The path resolved to the working directory itself.
	cur.Close()
	return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EISDIR}
}

// linkTarget turns a symlink's target, read in the directory done (slash,
// relative to the root), into a clean slash path relative to the root;
// false when it leads outside.
func (w *workdir) linkTarget(done, dest string) (string, bool) {
	if filepath.IsAbs(dest) {
		r, err := w.rel(dest)
		return r, err == nil
	}
	tr := path.Clean(path.Join(done, filepath.ToSlash(dest)))
	return tr, tr != ".." && !strings.HasPrefix(tr, "../")
}

// openDirAs opens the directory name of dir and checks that it is the
// directory want describes (Lstat'ed just before): a symlink swapped in
// between leads elsewhere and is refused.
func openDirAs(dir *os.Root, name string, want fs.FileInfo) (*os.Root, error) {
	sub, err := dir.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	got, err := sub.Stat(".")
	if err != nil || !os.SameFile(want, got) {
		sub.Close()
		if err == nil {
			err = errSwapped
		}
		return nil, err
	}
	return sub, nil
}

// close releases the directory handle.
func (t *target) close() {
	if t != nil && t.dir != nil {
		t.dir.Close()
		t.dir = nil
	}
}

// open opens the existing file for reading through the held directory and
// checks that it is the file the walk looked at.
func (t *target) open() (*os.File, error) {
	if t.fi == nil || len(t.missing) > 0 {
		return nil, &fs.PathError{Op: "open", Path: t.real, Err: fs.ErrNotExist}
	}
	f, err := t.dir.Open(t.base)
	if err != nil {
		return nil, err
	}
	got, err := f.Stat()
	if err != nil || !os.SameFile(t.fi, got) {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: t.real, Err: errSwapped}
		}
		return nil, err
	}
	return f, nil
}

// readAll reads the whole existing file through the held directory.
func (t *target) readAll() ([]byte, error) {
	f, err := t.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// mkdirs creates the missing directories below dir, each made and opened
// from the one before it, and returns the directory the file goes in.
func (t *target) mkdirs() error {
	for len(t.missing) > 0 {
		name := t.missing[0]
		if err := t.dir.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := t.dir.Lstat(name)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: name, Err: errSwapped}
		}
		next, err := openDirAs(t.dir, name, fi)
		if err != nil {
			return err
		}
		t.dir.Close()
		t.dir, t.missing = next, t.missing[1:]
	}
	return nil
}

// describeTarget is describe for an error of target.
func describeTarget(p string, err error) string {
	if errors.Is(err, errSwapped) {
		return fmt.Sprintf("%s: %v", p, errSwapped)
	}
	return describe(p, err)
}
