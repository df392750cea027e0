package gitcmd

import (
	"os"
	"path/filepath"
)

// LockFile takes the advisory lock of the file at path (made, with its
// directory, when missing), waiting for it, and returns the function that
// releases it. Where the system has no advisory locks, or the file cannot
// be made, it returns a release that does nothing: callers hold their own
// in-process lock beside it.
func LockFile(path string) (unlock func()) {
	var f *os.File
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		f, _ = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	}
	if f != nil && lockFile(f) != nil {
		f.Close()
		f = nil
	}
	return func() {
		if f != nil {
			unlockFile(f)
			f.Close()
		}
	}
}
