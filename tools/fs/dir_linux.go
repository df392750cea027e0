//go:build linux && !fsportable

package fs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
)

// dirRef is an open directory descriptor. On Linux the walk does not go
// through os.Root for each entry: an os.Root directory lists its entries
// with one fstatat each and opens files as pollable os.Files, which
// together more than double the system calls of a search. Instead, the
// walk starts from a directory opened through os.Root and goes on with
// openat(2) on single names read from the directory itself, never "." or
// "..", with O_NOFOLLOW: a symlink is refused rather than followed, so
// nothing outside the start directory can be reached, which is the
// guarantee os.Root gives.
type dirRef struct {
	f    *os.File // a plain (not os.Root) File, so ReadDir uses d_type
	fd   int
	refs atomic.Int32
}

func newDirRef(fd int, name string) *dirRef {
	d := &dirRef{f: os.NewFile(uintptr(fd), name), fd: fd}
	d.refs.Store(1)
	return d
}

// openStart opens the directory start (a slash path) of root.
func openStart(root *os.Root, start string) (*dirRef, error) {
	f, err := root.Open(native(start))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: start, Err: syscall.ENOTDIR}
	}
	fd, err := openat(int(f.Fd()), ".", syscall.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: start, Err: err}
	}
	return newDirRef(fd, start), nil
}

// openTarget opens the directory tg names through its held directory,
// checked to be the one the resolution looked at.
func openTarget(tg *target) (*dirRef, error) {
	f, err := tg.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, err := openat(int(f.Fd()), ".", syscall.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: tg.real, Err: err}
	}
	return newDirRef(fd, tg.real), nil
}

func (d *dirRef) entries() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

// sub opens the sub-directory name, held once.
func (d *dirRef) sub(name string) (*dirRef, error) {
	fd, err := openat(d.fd, name, syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return newDirRef(fd, name), nil
}

// open opens the file name in d for reading.
func (d *dirRef) open(name string) (io.ReadCloser, error) {
	fd, err := openat(d.fd, name, syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return fdFile(fd), nil
}

func (d *dirRef) readIgnore() []ignoreRule {
	f, err := d.open(".gitignore")
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	return parseIgnore(data)
}

func (d *dirRef) close() { d.f.Close() }

var errBadName = errors.New("not a single path element")

// openat opens name, one element of the directory dirfd, read-only without
// following a symlink.
func openat(dirfd int, name string, flags int) (int, error) {
	if name == "" || name == ".." || strings.ContainsRune(name, '/') {
		return -1, errBadName
	}
	for {
		fd, err := syscall.Openat(dirfd, name, flags|syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// fdFile reads a file descriptor with plain read(2) calls.
type fdFile int

func (f fdFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdFile) Close() error { return syscall.Close(int(f)) }
