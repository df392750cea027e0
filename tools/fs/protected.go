package fs

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

// errCredentials is the message for a read of a credentials path.
const errCredentials = "%s holds credentials (keys, tokens); the file tools do not read it. Do not try another way: ask the user for what you need."

// walkDenied reports whether a file the walk reached is or lies in a
// credentials path that the working directory holds: every directory on
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

// deniedAt reports whether rel as given, or real, the path one resolution
// (target) reached and the read then goes through, is or lies in a
// credentials path that the working directory holds (the working
// directory is the home directory, say).
func (w *workdir) deniedAt(rel, real string) bool {
	if w.protect == nil {
		return false
	}
	p := w.protect.Paths()
	return p.ReadDenied(rel) || p.ReadDenied(real)
}
