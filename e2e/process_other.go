//go:build !linux

package e2e

import (
	"os/exec"
	"testing"
)

// The end-to-end tests run on Linux: they find the processes a test started
// through /proc. Elsewhere the harness builds (release targets compile every
// package) but these find and wait for nothing.

// Process is a process as /proc shows it; there is none here.
type Process struct{}

// ProcessTree finds nothing here.
func ProcessTree(root int) []Process { return nil }

// WaitExited returns at once here.
func WaitExited(t *testing.T, procs []Process, session int) {}

// OwnSession leaves cmd as it is here.
func OwnSession(cmd *exec.Cmd) {}
