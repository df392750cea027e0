//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

// killGroup kills the server's process (no process groups here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// terminateSignal asks a server to end before it is killed (Windows has
// no SIGTERM: the Kill after it ends the server).
var terminateSignal = os.Interrupt
