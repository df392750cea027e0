//go:build unix

package gitcmd

import (
	"os"
	"syscall"
)

// lockFile takes f's advisory lock, waiting for it (flock: released when
// f is closed, or its process ends).
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
