package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// JSONLines decodes stdout of stream-json into objects.
func JSONLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("stream-json line is not JSON: %q: %v", line, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// StartAgent starts the binary with stream-json output and returns a scanner
// over its stdout lines; the test waits for it (ExitCodeOf). The agent runs
// in a session of its own: when the test ends, the agent is killed if it
// still runs, and every process of its session is waited for before the
// test's directories are removed.
func StartAgent(t *testing.T, dir string, args []string) (*exec.Cmd, *bufio.Scanner, *strings.Builder) {
	t.Helper()
	agent := Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), HangLimit)
	cmd := exec.CommandContext(ctx, agent, args...)
	cmd.Dir = dir
	cmd.Env = BaseEnv(t)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	OwnSession(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		WaitExited(t, nil, cmd.Process.Pid)
	})
	return cmd, bufio.NewScanner(out), stderr
}

// WaitForEvent reads stream-json lines until one has the given type, and returns
// the lines read.
func WaitForEvent(t *testing.T, sc *bufio.Scanner, typ string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		objs = append(objs, obj)
		if obj["type"] == typ {
			return objs
		}
	}
	t.Fatalf("stream ended before a %s event", typ)
	return nil
}

// ExitCodeOf waits for cmd and returns its exit code.
func ExitCodeOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// Decisions returns the recorded decision of each tool call in a
// stream-json output, by call id.
func Decisions(t *testing.T, stdout string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string         `json:"type"`
			ID   string         `json:"id"`
			Meta map[string]any `json:"meta"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_call_finished" {
			out[ev.ID], _ = ev.Meta["decision"].(string)
		}
	}
	return out
}

// SessionIDOf is the session id of a run's --output-format json result.
func SessionIDOf(t *testing.T, stdout string) string {
	t.Helper()
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.SessionID == "" {
		t.Fatalf("no session id in %q: %v", stdout, err)
	}
	return res.SessionID
}
