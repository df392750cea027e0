package gitfmt

import "io/fs"

// ModeOf is the mode git gives a file of fi (from lstat): ModeExecutable
// for a regular file its owner may run, ModeFile for another, ModeSymlink
// for a symbolic link; false for anything else (a directory, a FIFO).
func ModeOf(fi fs.FileInfo) (uint32, bool) {
	switch m := fi.Mode(); {
	case m.IsRegular() && m.Perm()&0o100 != 0:
		return ModeExecutable, true
	case m.IsRegular():
		return ModeFile, true
	case m&fs.ModeSymlink != 0:
		return ModeSymlink, true
	}
	return 0, false
}
