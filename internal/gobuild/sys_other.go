//go:build !linux && !darwin

package gobuild

import (
	"context"
	"errors"
	"os/exec"
)

// errNoLock says that this system offers no file lock to share builds.
var errNoLock = errors.New("no file lock here")

// lock reports errNoLock: Shared then builds for its caller alone.
func lock(ctx context.Context, path string) (unlock func(), err error) { return nil, errNoLock }

// ownGroup leaves cmd as it is.
func ownGroup(cmd *exec.Cmd) {}

// interrupt stops cmd's process; Windows has no interrupt to send to
// another process.
func interrupt(cmd *exec.Cmd) error { return cmd.Process.Kill() }
