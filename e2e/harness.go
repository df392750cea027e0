// Package e2e is the harness of the end-to-end tests, which live in its
// subdirectories, one package for each front-end. They run the agent, built
// once for all of them (see Agent), as a separate process against the
// scripted servers (internal/scripted and its siblings), often on a
// temporary copy of this repository's source tree, and check what a person
// or a script would see: stdout, stderr, the exit code, the terminal in
// tmux, and the requests the servers received.
package e2e

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
)

// SourceTree copies this repository's Go sources and docs (not .git) into a
// temporary directory and returns it.
func SourceTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := Root(t)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "out" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Result is what one run of the binary produced.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Invocation describes one run of the binary.
type Invocation struct {
	Dir   string
	Stdin io.Reader // nil: /dev/null
	Env   []string  // added to a minimal environment
	Args  []string
	// Watch, when not nil,, is given stderr as it is written, too.
	Watch io.Writer
}

// BaseEnv is a minimal environment: no config file, no API key, no model
// unless a test adds them.
func BaseEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		// A binary built with -race sleeps a second at exit unless told not to.
		"GORACE=atexit_sleep_ms=0",
		// No language server (gopls is on the test machines' PATH): a test
		// that reads a Go file of a copied tree would start one on the
		// whole module, whose telemetry outlives the run. e2e/lsp sets
		// AGENT_LSP=on.
		"AGENT_LSP=off"}
}

// HangLimit bounds a run of the binary, or a wait for a screen or an
// event; reaching it means the agent hung. It is generous: the tests run in
// parallel, under -race, on machines busy with other work.
const HangLimit = 3 * time.Minute

// Run runs the agent as inv says, waits for it and for every process it
// started, and returns what it printed and its exit code. A run past
// HangLimit fails the test.
func Run(t *testing.T, inv Invocation) Result {
	t.Helper()
	agent := Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, inv.Args...)
	cmd.Dir = inv.Dir
	cmd.Env = append(BaseEnv(t), inv.Env...)
	cmd.Stdin = inv.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if inv.Watch != nil {
		cmd.Stderr = io.MultiWriter(&stderr, inv.Watch)
	}
	OwnSession(cmd)
	err := cmd.Run()
	if cmd.Process != nil {
		// What the agent started (MCP servers, commands) may outlive
		// it by a moment; the test's directories are removed after.
		WaitExited(t, nil, cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		t.Fatalf("agent %v hung for %v; stderr:\n%s", inv.Args, HangLimit, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running agent: %v", err)
	}
	return Result{stdout.String(), stderr.String(), code}
}

// AgentArgs are the flags that point the agent at srv.
func AgentArgs(srv *scripted.Server, args ...string) []string {
	return append([]string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"}, args...)
}

// RunOK runs the agent and fails the test unless it exits 0.
func RunOK(t *testing.T, inv Invocation) Result {
	t.Helper()
	r := Run(t, inv)
	if r.Code != 0 {
		t.Fatalf("agent %v: exit %d\nstdout %s\nstderr %s", inv.Args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}
