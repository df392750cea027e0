//go:build !unix

package hooks

import "os/exec"

// ownGroup leaves cancellation to exec's default here (no process
// groups): the hook's shell is killed.
func ownGroup(*exec.Cmd) {}
