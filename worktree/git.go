package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitWait is how long git may take to end once its context is cancelled
// and it was interrupted, before it is killed.
const gitWait = 2 * time.Second

// gitEnv is the environment git runs with: the process's, without the
// variables that would point it at another repository or index (set when
// agent runs from a git hook), and never prompting.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_NAMESPACE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, append([]string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}, extra...)...)
}

// git runs git with args in dir and returns its standard output. A
// failure is an error naming the command with what git said on stderr.
// Cancelling ctx interrupts git, then kills it after gitWait.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitWith(ctx, dir, nil, args...)
}

// gitWith is git with extra environment variables.
func gitWith(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv(env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = gitWait
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if msg == "" || !errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), lastLines(msg, 3))
	}
	return stdout.String(), nil
}

// lastLines keeps the last n lines of s, joined with "; ".
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// gitOK runs git like git, reporting only whether it exited 0 (a
// --verify or --quiet query); an error is returned only when git could
// not run or ctx ended.
func gitOK(ctx context.Context, dir string, args ...string) (bool, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = gitWait
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return false, fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
	case err == nil:
		return true, nil
	case errors.As(err, &ee):
		return false, nil
	}
	return false, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
}
