package lsp

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread is how many bytes the pipe f holds that nobody read yet (the
// FIONREAD ioctl, TIOCINQ in x/sys/unix); -1 when it cannot say.
func unread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	n := -1
	if err := rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	}); err != nil {
		return -1
	}
	return n
}
