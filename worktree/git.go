package worktree

import (
	"context"

	"github.com/agent-dev/agent/gitcmd"
)

// git runs git with args in dir and returns its standard output (see
// gitcmd.Cmd.Run).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitcmd.Run(ctx, dir, args...)
}

// gitWith is git with extra environment variables.
func gitWith(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return gitcmd.Cmd{Dir: dir, Env: env}.Run(ctx, args...)
}

// gitOK runs git reporting only whether it exited 0 (see gitcmd.Cmd.OK).
func gitOK(ctx context.Context, dir string, args ...string) (bool, error) {
	return gitcmd.Cmd{Dir: dir}.OK(ctx, args...)
}
