//go:build !unix

package background

import (
	"os"
	"os/exec"
)

// Without Unix process groups (Windows) only the started process itself is
// stopped, and both steps kill it.

func setProcessGroup(*exec.Cmd) {}

func terminateGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// killLeftovers does nothing here: the pid of an ended process may name
// another one already.
func killLeftovers(int) {}
