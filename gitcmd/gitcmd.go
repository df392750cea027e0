// Package gitcmd runs the git binary for the packages that keep state in
// git's own format (worktrees, checkpoints): an environment that never
// points git at another repository by accident and never prompts, errors
// that name the command with what git said, interruption before a kill
// when the context ends, and an advisory lock for the commands that must
// not overlap.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Wait is how long git may take to end once its context is cancelled and
// it was interrupted, before it is killed.
const Wait = 2 * time.Second

// Env is the environment git runs with: the process's, without the
// variables that would point it at another repository or index (set when
// agent runs from a git hook), never prompting and taking no optional
// lock, followed by extra ("NAME=value" each, which win).
func Env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_NAMESPACE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
			"GIT_CONFIG_COUNT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, append([]string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}, extra...)...)
}

// Cmd is one git command.
type Cmd struct {
	// Dir is where git runs (git -C Dir).
	Dir string
	// Env are variables added to Env's ("NAME=value").
	Env []string
	// Stdin, when not nil, is git's standard input.
	Stdin io.Reader
	// Yield runs git (Run, Status, OK) at a lower CPU priority, nice
	// yieldNice where the system has one: work nobody waits for at that
	// moment, such as a checkpoint read while a request is in flight,
	// leaves the processors to the agent's turn when both want them (0.5
	// to 5.5 ms of a five-step -p run's median wall on two cores, in five
	// paired calls; BENCHMARKS.md, issue 43).
	// On an idle machine it runs as fast.
	Yield bool
}

// yieldNice is the nice value of a Cmd with Yield (0 is the default, 19
// the lowest priority).
const yieldNice = 10

// run runs cmd, lowered first when c yields.
func (c Cmd) run(cmd *exec.Cmd) error {
	if !c.Yield {
		return cmd.Run()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	lower(cmd.Process.Pid, yieldNice)
	return cmd.Wait()
}

// Run runs git with args and returns its standard output. A failure is an error naming the command with the
// last lines git wrote on stderr. Cancelling ctx interrupts git, then
// kills it after Wait; the error then wraps ctx.Err().
func (c Cmd) Run(ctx context.Context, args ...string) (string, error) {
	cmd := c.command(ctx, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := c.run(cmd); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if msg == "" || !errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), LastLines(msg, 3))
	}
	return stdout.String(), nil
}

// Status runs git like Run but returns its exit code instead of an error
// when it ran and exited non-zero (git check-ignore exits 1 when no path
// is ignored): err is for git that could not run, or ctx ended.
func (c Cmd) Status(ctx context.Context, args ...string) (string, int, error) {
	cmd := c.command(ctx, args)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := c.run(cmd)
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", 0, fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
	case errors.As(err, &ee):
		return stdout.String(), ee.ExitCode(), nil
	case err != nil:
		return "", 0, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return stdout.String(), 0, nil
}

// OK runs git like Run, reporting only whether it exited 0 (a --verify or
// --quiet query); an error is returned only when git could not run or ctx
// ended.
func (c Cmd) OK(ctx context.Context, args ...string) (bool, error) {
	cmd := c.command(ctx, args)
	err := c.run(cmd)
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

// Start starts git with args for a caller that talks to it through pipes
// (cat-file --batch): the caller sets the command's Stdin and Stdout
// before it calls Start and waits for it after.
func (c Cmd) Start(ctx context.Context, args ...string) *exec.Cmd {
	return c.command(ctx, args)
}

func (c Cmd) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", c.Dir}, args...)...)
	cmd.Env = Env(c.Env...)
	cmd.Stdin = c.Stdin
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = Wait
	return cmd
}

// Run runs git with args in dir (see Cmd.Run).
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	return Cmd{Dir: dir}.Run(ctx, args...)
}

// LastLines keeps the last n lines of s, joined with "; ".
func LastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
