//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the hook's process the leader of a new process group,
// keeping the attributes a sandbox set, so that killGroup takes the
// hook's own children with it.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills the started cmd's process group (SIGKILL).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
