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
