//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the server the leader of a new process group, so
// that it and what it starts (typescript-language-server's tsserver) stop
// together.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the server's process group; an empty group is fine.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
