//go:build !unix

package shell

import "os/exec"

// On systems without Unix process groups (Windows) the tool stops only the
// bash process itself: there is no interrupt to send, so both steps kill.
// Processes that bash started may outlive it; the pipe's WaitDelay still
// bounds how long Run waits for them.

func setProcessGroup(*exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd) { killProcess(cmd) }

func killGroup(cmd *exec.Cmd) { killProcess(cmd) }

func killProcess(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
