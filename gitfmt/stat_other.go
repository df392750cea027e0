//go:build !linux && !darwin

package gitfmt

import "io/fs"

// StatOf is the stat git keeps of the file of fi; false here: git's stat
// on this system (Windows' emulation) is left to git.
func StatOf(fi fs.FileInfo) (Stat, bool) { return Stat{}, false }
