//go:build !linux

package sessions

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// processStart reports whether process pid exists; its start time is not
// known here (0). Where that cannot be asked (Windows), every process is
// taken to exist: a held session is then forked rather than shared.
func processStart(pid int) (int64, bool) {
	if runtime.GOOS == "windows" {
		return 0, true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return 0, false
	}
	err = p.Signal(syscall.Signal(0))
	return 0, err == nil || errors.Is(err, os.ErrPermission)
}
