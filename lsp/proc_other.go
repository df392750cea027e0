//go:build !unix

package lsp

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

// killGroup kills the server's process (no process groups here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
