//go:build unix

package background

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the child the leader of a new process group, so
// that it and everything it starts are stopped together; it keeps what a
// Builder set (a sandbox's namespaces, its parent-death signal).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// terminateGroup sends SIGTERM to process group pgid; killGroup SIGKILL.
// A group that is gone (ESRCH), or pgid 0 (nothing started), is no
// problem.
func terminateGroup(pgid int) { signalGroup(pgid, syscall.SIGTERM) }

func killGroup(pgid int) { signalGroup(pgid, syscall.SIGKILL) }

func signalGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}

// killLeftovers kills what an ended command left running in its process
// group (background jobs of its own): they go with it. The group's id
// cannot have been reused while a member lives.
func killLeftovers(pgid int) { killGroup(pgid) }
