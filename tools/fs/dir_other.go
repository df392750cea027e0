//go:build !linux || fsportable

package fs

import (
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// dirRef is a directory opened as its own os.Root (everywhere but Linux,
// and on Linux with -tags fsportable): opening a file in it
// costs one path element, and nothing can lead out of it.
type dirRef struct {
	root *os.Root
	refs atomic.Int32
}

func newDirRef(root *os.Root) *dirRef {
	d := &dirRef{root: root}
	d.refs.Store(1)
	return d
}

// openStart opens the directory start (a slash path) of root.
func openStart(root *os.Root, start string) (*dirRef, error) {
	r, err := root.OpenRoot(native(start))
	if err != nil {
		return nil, err
	}
	return newDirRef(r), nil
}

// openTarget opens the directory tg names through its held directory,
// checked to be the one the resolution looked at.
func openTarget(tg *target) (*dirRef, error) {
	if tg.fi == nil || len(tg.missing) > 0 {
		return nil, &fs.PathError{Op: "open", Path: tg.real, Err: fs.ErrNotExist}
	}
	r, err := openDirAs(tg.dir, tg.base, tg.fi)
	if err != nil {
		return nil, err
	}
	return newDirRef(r), nil
}

func (d *dirRef) entries() ([]fs.DirEntry, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// sub opens the sub-directory name, held once.
func (d *dirRef) sub(name string) (*dirRef, error) {
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return newDirRef(r), nil
}

// open opens the file name in d for reading.
func (d *dirRef) open(name string) (io.ReadCloser, error) { return d.root.Open(name) }

func (d *dirRef) readIgnore() []ignoreRule {
	data, err := d.root.ReadFile(".gitignore")
	if err != nil {
		return nil
	}
	return parseIgnore(data)
}

func (d *dirRef) close() { d.root.Close() }
