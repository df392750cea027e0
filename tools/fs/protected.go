package fs

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving a path, as the
// kernel's ELOOP does.
const maxLinks = 40

// risk is the risk of change c, judged on its path as given and as the
// one resolution its write goes through reached it (c.t.real): a link
// named notes.txt that points at .git/config is git metadata. "" when
// neither is protected.
func (e editor) risk(c *change) string {
	if e.protect == nil {
		return ""
	}
	return e.protect.Risk(c.rel, c.t.real)
}

// resolve follows the symlinks of rel (a clean slash path relative to the
// root) inside the working directory and returns the path they lead to,
// relative to the root; a missing part ends the walk and the rest is kept
// as written. A link leading outside, a loop or an error gives rel itself
// (the root refuses such a path when it is opened).
func (w *workdir) resolve(rel string) string {
	parts := strings.Split(rel, "/")
	done := "."
	for hops := 0; len(parts) > 0; {
		next := join(done, parts[0])
		fi, err := w.root.Lstat(native(next))
		if errors.Is(err, fs.ErrNotExist) {
			return path.Clean(path.Join(append([]string{done}, parts...)...))
		}
		if err != nil {
			return rel
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done, parts = next, parts[1:]
			continue
		}
		if hops++; hops > maxLinks {
			return rel
		}
		target, err := w.root.Readlink(native(next))
		if err != nil {
			return rel
		}
		var tr string
		if filepath.IsAbs(target) {
			if tr, err = w.rel(target); err != nil {
				return rel
			}
		} else {
			tr = path.Clean(path.Join(done, filepath.ToSlash(target)))
			if tr == ".." || strings.HasPrefix(tr, "../") {
				return rel
			}
		}
		// Start again from the root with the link replaced by its target.
		rest := append(strings.Split(tr, "/"), parts[1:]...)
		done, parts = ".", rest
	}
	return path.Clean(done)
}

// errCredentials is the message for a read of a credentials path.
const errCredentials = "%s holds credentials (keys, tokens); the file tools do not read it. Do not try another way: ask the user for what you need."

// readDenied reports whether rel (a clean slash path relative to the root),
// as given or with its symlinks resolved, is or lies in a credentials path
// that the working directory holds (the working directory is the home
// directory, say).
func (w *workdir) readDenied(rel string) bool {
	if w.protect == nil {
		return false
	}
	p := w.protect.Paths()
	return p.ReadDenied(rel) || p.ReadDenied(w.resolve(rel))
}

// walkDenied is readDenied of a file the walk reached: every directory on
// its way was opened as a directory read from its parent, never through a
// symlink, and the file is a regular one, so rel is the path it resolves
// to and no part of it needs a look (the walk's reads go through those
// directories' descriptors, not the path).
func (w *workdir) walkDenied(rel string) bool {
	if w.protect == nil {
		return false
	}
	return w.protect.Paths().ReadDenied(rel)
}

// deniedAt is readDenied of rel as given and of real, the path one
// resolution (target) reached and the read then goes through.
func (w *workdir) deniedAt(rel, real string) bool {
	if w.protect == nil {
		return false
	}
	p := w.protect.Paths()
	return p.ReadDenied(rel) || p.ReadDenied(real)
}
