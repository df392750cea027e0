//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the hook's shell the leader of a new process group and
// makes cancellation kill the whole group, so a hook's own children go
// with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
