//go:build !linux && !darwin

package sandbox

import (
	"os/exec"
	"runtime"

	"github.com/agent-dev/agent/tools/shell"
)

// unsupported is the platform without a sandbox: commands run unconfined,
// which the permission policy answers by asking before each.
type unsupported struct{}

func newPlatform(Policy) platform { return unsupported{} }

func (unsupported) status(bool) Status {
	return Status{Reason: "there is no sandbox for " + runtime.GOOS}
}

func (unsupported) build(spec shell.Spec) (*exec.Cmd, error) { return shell.BashCommand(spec) }

func (unsupported) close() error { return nil }

func (unsupported) usage() boundUsage { return boundUsage{} }
