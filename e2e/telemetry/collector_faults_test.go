package telemetry

import (
	"bytes"
	"context"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A collector that is down, hangs or answers 500 changes nothing of a
// run but one warning on stderr: the exit code and stdout are those of a
// run without telemetry, and the run ends within a bounded flush after its
// answer (telemetry.ShutdownWait, 1 s; the test allows 5 s for a loaded
// machine, far below the exporters' own 10 s timeout that an unbounded
// flush would wait).
func TestCollectorFaultsDoNotChangeTheRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		endpoint func(t *testing.T) (url string, arrived <-chan struct{})
	}{
		{"down", func(t *testing.T) (string, <-chan struct{}) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close() // nothing listens there now
			return "http://" + addr, nil
		}},
		{"hangs", func(t *testing.T) (string, <-chan struct{}) {
			r := newReceiver(t, hang)
			return r.URL(), r.arrived
		}},
		{"answers 500", func(t *testing.T) (string, <-chan struct{}) {
			r := newReceiver(t, refuse)
			return r.URL(), r.arrived
		}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			url, arrived := tc.endpoint(t)
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call{ID: "c1", Name: "list_files", Arguments: `{}`}),
				scripted.Text("two files"))
			dir := t.TempDir()
			e2e.WriteFile(t, dir, "a.txt", "a\n")
			res, sinceAnswer := runTimed(t, dir, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + url},
				e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "count the files")...)
			if res.Code != 0 || res.Stdout != "two files\n" {
				t.Errorf("exit %d, stdout %q: want 0 and the answer, as without telemetry", res.Code, res.Stdout)
			}
			if arrived != nil {
				select {
				case <-arrived:
				default:
					t.Errorf("the collector heard nothing: the fault was not exercised")
				}
			}
			warnings := 0
			for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
				if strings.Contains(line, "telemetry") {
					warnings++
				}
			}
			if warnings != 1 {
				t.Errorf("%d telemetry warnings, want 1; stderr:\n%s", warnings, res.Stderr)
			}
			if sinceAnswer > 5*time.Second {
				t.Errorf("the run ended %v after its answer; the flush is bounded at 1 s", sinceAnswer)
			}
		})
	}
}

// runTimed runs the agent with env added and returns what it printed and
// how long it took to exit after the first byte of its answer reached
// stdout (a -p text answer is printed once the turn ended).
func runTimed(t *testing.T, dir string, env []string, args ...string) (e2e.Result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.Agent(t), args...)
	cmd.Dir, cmd.Env = dir, append(e2e.BaseEnv(t), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e2e.OwnSession(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	first := make([]byte, 1)
	var answered time.Time
	if n, _ := out.Read(first); n == 1 {
		answered = time.Now()
		stdout.Write(first)
	}
	io.Copy(&stdout, out)
	err = cmd.Wait()
	exited := time.Now()
	e2e.WaitExited(t, nil, cmd.Process.Pid)
	if ctx.Err() != nil {
		t.Fatalf("agent hung for %v; stderr:\n%s", e2e.HangLimit, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if answered.IsZero() {
		answered = exited
	}
	return e2e.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}, exited.Sub(answered)
}
