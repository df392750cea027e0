package lsp

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pipesWatched: Linux says what a pipe holds.
const pipesWatched = true

// Read reads the pipe as os.File does, through the runtime's poller, and
// records whether the reader is about to wait for more: a read that finds
// the pipe empty (EAGAIN: the poller then waits for it) or at its end sets
// waiting, a read that begins clears it, before the system call, so that no
// moment between a read that took bytes and their handling counts as
// drained.
func (w *watchedReader) Read(p []byte) (int, error) {
	rc, err := w.f.SyscallConn()
	if err != nil {
		return w.f.Read(p)
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		w.setWaiting(false)
		for {
			n, rerr = unix.Read(int(fd), p)
			if rerr != unix.EINTR {
				break
			}
		}
		switch {
		case rerr == unix.EAGAIN:
			w.setWaiting(true)
			return false // the poller waits for the pipe, then calls again
		case rerr == nil && n == 0 && len(p) > 0:
			w.setWaiting(true) // its end: nothing more comes
		case n > 0 && w.tookBytes != nil:
			w.tookBytes()
		}
		return true
	})
	if err != nil {
		return w.f.Read(p) // closed: os.File's own error (os.ErrClosed)
	}
	if rerr != nil {
		return 0, &os.PathError{Op: "read", Path: w.f.Name(), Err: rerr}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

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
