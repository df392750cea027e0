//go:build !unix

package hooks

import "os/exec"

// ownGroup does nothing here (no process groups): killGroup kills the
// hook's shell.
func ownGroup(*exec.Cmd) {}

// killGroup kills the started cmd's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
