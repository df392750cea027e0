//go:build !linux

package sandbox

import (
	"os/exec"

	"github.com/agent-dev/agent/tools/shell"
)

// supervised returns cmd as it is: there is no parent-death signal here.
func supervised(cmd *exec.Cmd, _ shell.Spec) *exec.Cmd { return cmd }
