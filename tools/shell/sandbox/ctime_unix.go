//go:build linux || darwin

package sandbox

import (
	"os"
	"syscall"
	"time"
)

// changeTime is a file's status-change time (ctime), which the kernel sets
// and no system call can set back.
func changeTime(fi os.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}
	}
	return statCtime(st)
}

// processAlive reports whether a process with the id exists (it may belong
// to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// ownedByUs reports whether path (not followed) belongs to this process's
// user.
func ownedByUs(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
