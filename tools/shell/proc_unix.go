//go:build unix

package shell

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the child the leader of a new process group, so that
// it and everything it starts can be signalled together. It keeps any other
// attribute a Builder set.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// terminateGroup asks the child's process group to stop (SIGTERM).
func terminateGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

// killGroup kills the child's process group (SIGKILL).
func killGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

// signalGroup sends sig to the process group whose id is the child's pid. An
// empty group (ESRCH) is not a problem: everything is gone already.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
