//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/shell"
)

// benchSandbox is the sandbox of p, its helper helperExe when not "" (the
// agent's binary, to compare: production starts the embedded helper,
// helperbin); it skips the benchmark where p's mode cannot be enforced.
func benchSandbox(b *testing.B, p Policy, helperExe string) *Sandbox {
	b.Helper()
	sb, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	if p.Mode != Off && !sb.Status().Enforced {
		b.Skipf("no sandbox here: %s", sb.Status().Reason)
	}
	if l, ok := sb.impl.(*linux); ok && helperExe != "" {
		l.exe = helperExe
	}
	return sb
}

// BenchmarkCommand measures a whole bash tool call, unsandboxed (also
// "off-supervised": under the helper that confines nothing, as the agent
// starts every command since background processes came) and
// sandboxed (workspace-write, network off: Landlock, user, mount and network
// namespaces, read-only remounts, the subreaper), for `true` and a short
// `ls`, in a git repository. "workspace-write" is as the agent runs it: with
// the process bound, the session's tmpfs and the git guard after each
// command; "workspace-write-bare" is without them. The helper is the one
// the agent starts, embedded (helperbin), or the program named by
// AGENT_SANDBOX_HELPER (bench/sandbox.sh with HELPER names the agent's binary, to
// compare); "off-supervised" starts the test binary, as the agent starts
// its own.
func BenchmarkCommand(b *testing.B) {
	if _, err := os.Stat("/usr/bin/bash"); err != nil {
		b.Skip("no bash")
	}
	helperExe := os.Getenv("AGENT_SANDBOX_HELPER")
	dir := b.TempDir()
	for _, name := range []string{"a.go", "b.go", "README.md"} {
		os.WriteFile(dir+"/"+name, []byte("x\n"), 0o644)
	}
	exec.Command("git", "-C", dir, "init", "-q").Run()
	for _, c := range []struct {
		name    string
		mode    Mode
		bounded bool
	}{{"off", Off, false}, {"off-supervised", Off, false}, {"workspace-write", WorkspaceWrite, true}, {"workspace-write-bare", WorkspaceWrite, false}} {
		p := Policy{Mode: c.mode, Dir: dir}
		if c.bounded {
			p.MaxProcesses, p.TempSize = 1024, 1<<30
		}
		sb := benchSandbox(b, p, helperExe)
		// Started in the session's network namespace, as the agent does.
		cfg := shell.Config{Dir: dir, Build: sb.Build, Start: sb.Start}
		if c.name == "off-supervised" { // as the interface builds every command
			cfg.Build = sb.BuildBackground
		}
		if c.bounded {
			cfg.Guard = sb.Guard
		}
		tool := shell.New(cfg)
		for _, command := range []string{"true", "ls"} {
			raw, _ := json.Marshal(map[string]string{"command": command})
			b.Run(c.name+"/"+command, func(b *testing.B) {
				for b.Loop() {
					res, err := tool.Run(context.Background(), tools.Call{Args: raw})
					if err != nil || res.Meta["exit_code"] != 0 {
						b.Fatalf("%s: %v %s", command, err, res.Content)
					}
				}
			})
		}
		sb.Close()
	}
}

// BenchmarkBackgroundStart measures a bash call with run_in_background
// from the call to a running process (the call returns once the process
// has started): unsandboxed, where the helper supervises it only, and in
// workspace-write. Each process is stopped outside the timing.
//
//	go test -run '^$' -bench BackgroundStart -benchtime 200x ./tools/shell/sandbox/
func BenchmarkBackgroundStart(b *testing.B) {
	helperExe := os.Getenv("AGENT_SANDBOX_HELPER")
	dir := b.TempDir()
	exec.Command("git", "-C", dir, "init", "-q").Run()
	for _, c := range []struct {
		name string
		mode Mode
	}{{"off", Off}, {"workspace-write", WorkspaceWrite}} {
		sb := benchSandbox(b, Policy{Mode: c.mode, Dir: dir, MaxProcesses: 1024, TempSize: 1 << 30}, helperExe)
		m, err := background.New(background.Config{Dir: filepath.Join(b.TempDir(), "bg"), Settings: background.Settings{MaxProcesses: 1 << 20}})
		if err != nil {
			b.Fatal(err)
		}
		tool := shell.New(shell.Config{Dir: dir, Build: sb.Build, BuildBackground: sb.BuildBackground, Start: sb.Start, Guard: sb.Guard, Background: m})
		raw, _ := json.Marshal(map[string]any{"command": "exec sleep 600", "run_in_background": true})
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := tool.Run(context.Background(), tools.Call{Args: raw})
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, res.Content)
				}
				b.StopTimer()
				m.Stop(context.Background(), res.Meta[tools.MetaBackgroundID].(string))
				b.StartTimer()
			}
		})
		m.Close()
		sb.Close()
	}
}

// BenchmarkGuardLargeRoot is the git guard's look after a command that
// changed nothing, with a writable root of 20,000 directories beside the
// working directory (as a Go module cache among writable_roots is): after
// its first look the guard stats the directories it knows instead of
// listing them.
//
//	go test -run '^$' -bench GuardLargeRoot ./tools/shell/sandbox/
func BenchmarkGuardLargeRoot(b *testing.B) {
	dir, cache := b.TempDir(), b.TempDir()
	exec.Command("git", "-C", dir, "init", "-q").Run()
	for i := range 200 {
		for j := range 100 {
			d := filepath.Join(cache, fmt.Sprintf("m%d", i), fmt.Sprintf("v%d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(d, "go.mod"), []byte("module m\n"), 0o644)
		}
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: dir, WritableRoots: []string{cache}})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	if !sb.Status().Enforced {
		b.Skipf("no sandbox here: %s", sb.Status().Reason)
	}
	sb.Guard()(tools.Result{}) // the first look lists everything
	for b.Loop() {
		sb.Guard()(tools.Result{})
	}
}

// BenchmarkFirstCommand measures a session's first bash tool call, the
// sandbox made for it and closed after it (what a `-p` run that runs one
// command pays): unsandboxed, and in workspace-write as the agent runs it
// (the process bound, the session's tmpfs, the network namespace kept for
// the session, the git guard). The helper is as in BenchmarkCommand.
//
//	go test -run '^$' -bench FirstCommand -benchtime 100x ./tools/shell/sandbox/
func BenchmarkFirstCommand(b *testing.B) {
	if _, err := os.Stat("/usr/bin/bash"); err != nil {
		b.Skip("no bash")
	}
	helperExe := os.Getenv("AGENT_SANDBOX_HELPER")
	dir := b.TempDir()
	os.WriteFile(dir+"/a.go", []byte("x\n"), 0o644)
	exec.Command("git", "-C", dir, "init", "-q").Run()
	raw, _ := json.Marshal(map[string]string{"command": "true"})
	for _, mode := range []Mode{Off, WorkspaceWrite} {
		b.Run(string(mode), func(b *testing.B) {
			for b.Loop() {
				sb := benchSandbox(b, Policy{Mode: mode, Dir: dir, MaxProcesses: 1024, TempSize: 1 << 30}, helperExe)
				tool := shell.New(shell.Config{Dir: dir, Build: sb.Build, Start: sb.Start, Guard: sb.Guard})
				res, err := tool.Run(context.Background(), tools.Call{Args: raw})
				if err != nil || res.Meta["exit_code"] != 0 {
					b.Fatalf("true: %v %s", err, res.Content)
				}
				sb.Close()
			}
		})
	}
}
