//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// readPid waits until the command has written a whole pid line to name.
func readPid(t *testing.T, dir, name string) int {
	t.Helper()
	path := filepath.Join(dir, name)
	deadline := time.Now().Add(hangLimit)
	for {
		b, _ := os.ReadFile(path)
		if s, ok := strings.CutSuffix(string(b), "\n"); ok {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s holds %q", name, b)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written within %v", name, hangLimit)
		}
		time.Sleep(10 * time.Millisecond) // polling for a file, not timing
	}
}

// alive reports whether pid is a running process (a zombie counts as gone:
// it is dead and only waits for a parent to reap it).
func alive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) S ...: the state follows the last ')'.
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+1:]
		return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
	} else if _, statErr := os.Stat("/proc/self"); statErr == nil {
		return false // /proc works and the pid is not in it
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// requireGone fails unless every pid dies within hangLimit. A SIGKILL is
// delivered asynchronously, so the test polls for the end.
func requireGone(t *testing.T, pids map[string]int) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for name, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("%s (pid %d) is still running", name, pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestTimeoutStopsTheWholeGroup(t *testing.T) {
	tool := newTool(t, Config{})
	dir := tool.cfg.Dir
	res := run(t, context.Background(), tool, map[string]any{
		"command":    `echo $$ > leader.pid; sleep 1000 & echo $! > child.pid; echo ready; wait`,
		"timeout_ms": 1000,
	})
	if !res.IsError || res.Meta["timed_out"] != true {
		t.Fatalf("want a timed-out error result, got %+v", res)
	}
	if !strings.HasPrefix(res.Content, "ready\n") || !strings.Contains(res.Content, "(signal: terminated)") {
		t.Errorf("Content = %q, want the output so far and SIGTERM as the end", res.Content)
	}
	requireGone(t, map[string]int{"bash": readPid(t, dir, "leader.pid"), "sleep": readPid(t, dir, "child.pid")})
}

func TestTimeoutKillsWhatIgnoresSIGTERM(t *testing.T) {
	const grace = 300 * time.Millisecond
	tool := newTool(t, Config{KillGrace: grace})
	dir := tool.cfg.Dir
	res := run(t, context.Background(), tool, map[string]any{
		// The ignored SIGTERM is inherited by sleep too.
		"command":    `trap '' TERM; echo $$ > leader.pid; sleep 1000 & echo $! > child.pid; echo ready; wait`,
		"timeout_ms": 1000,
	})
	if !res.IsError || res.Meta["timed_out"] != true {
		t.Fatalf("want a timed-out error result, got %+v", res)
	}
	if !strings.HasPrefix(res.Content, "ready\n") || !strings.Contains(res.Content, "(signal: killed)") {
		t.Errorf("Content = %q, want the output so far and SIGKILL as the end", res.Content)
	}
	// SIGTERM was ignored, so the end came only after the grace period.
	if d := res.Meta["duration_ms"].(int64); d < (time.Second + grace).Milliseconds() {
		t.Errorf("duration %d ms: SIGKILL came before the grace period ended", d)
	}
	requireGone(t, map[string]int{"bash": readPid(t, dir, "leader.pid"), "sleep": readPid(t, dir, "child.pid")})
}

func TestCancellationStopsTheWholeGroup(t *testing.T) {
	tool := newTool(t, Config{})
	dir := tool.cfg.Dir
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tools.Result, 1)
	go func() {
		res, err := tool.Run(ctx, tools.Call{Args: []byte(`{"command":"echo started; echo $$ > leader.pid; sleep 1000 & echo $! > child.pid; wait"}`)})
		if err != nil {
			t.Errorf("Run returned a Go error: %v", err)
		}
		done <- res
	}()
	pids := map[string]int{"bash": readPid(t, dir, "leader.pid"), "sleep": readPid(t, dir, "child.pid")}
	cancel()
	var res tools.Result
	select {
	case res = <-done:
	case <-time.After(hangLimit):
		t.Fatalf("Run did not return within %v of cancellation", hangLimit)
	}
	if !res.IsError || res.Meta["cancelled"] != true {
		t.Fatalf("want a cancelled error result, got %+v", res)
	}
	if !strings.HasPrefix(res.Content, "started\n") || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("Content = %q, want the output so far and a note", res.Content)
	}
	requireGone(t, pids)
}

func TestBackgroundJobDoesNotHoldTheCall(t *testing.T) {
	tool := newTool(t, Config{})
	dir := tool.cfg.Dir
	// The background sleep inherits the output pipe and would keep it open
	// for 1000 s.
	res := run(t, context.Background(), tool, map[string]any{"command": `sleep 1000 & echo $! > child.pid; echo done`})
	if res.IsError || res.Content != "done\nexit status 0" {
		t.Errorf("want done and exit status 0, got %+v", res)
	}
	requireGone(t, map[string]int{"background sleep": readPid(t, dir, "child.pid")})
}

func TestEscapedProcessDoesNotHoldTheCall(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("setsid is not installed, and CI must run this test")
		}
		t.Skip("setsid is not installed")
	}
	tool := newTool(t, Config{})
	dir := tool.cfg.Dir
	// setsid leaves the process group, so only closing the pipe ends the
	// wait for output.
	res := run(t, context.Background(), tool, map[string]any{
		"command": `setsid sh -c 'echo $$ > escaped.pid; exec sleep 1000' & echo done`,
	})
	pid := readPid(t, dir, "escaped.pid")
	defer syscall.Kill(pid, syscall.SIGKILL)
	if res.IsError || res.Content != "done\nexit status 0" {
		t.Errorf("want done and exit status 0, got %+v", res)
	}
}
