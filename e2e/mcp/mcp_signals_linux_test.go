package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPServersStopOnSIGTERM: a headless run waits for its MCP server
// before the first request (whose tools it offers), and SIGTERM during
// the turn stops the server's whole process group.
func TestMCPServersStopOnSIGTERM(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t, scripted.Text("never reached").HoldAfterEvents(0, hold))
	cfg := e2e.MCPConfig(t, fmt.Sprintf(`
[mcp.servers.everything]
command = "sh"
args = ["-c", "sleep 300 & echo $! > pid.fifo; exec %s"]
`, filepath.Join(bin, "mcp-server-everything")))
	cmd, _, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, "--config", cfg, "-p", "--output-format", "stream-json", "wait"))
	sleeper := e2e.ChildFromFIFO(t, fifo)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	if err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatalf("no request: %v; stderr %s", err, stderr)
	}
	if idx := e2e.ToolNamed(srv.Requests()[0], "pick_tools").Function.Description; !strings.Contains(idx, "mcp__everything__: ") {
		t.Errorf("the first request does not offer the server's tools: %q", idx)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	if !sleeper.Ended() {
		t.Errorf("the MCP server's process group outlived the run (sleeper %d)", sleeper.Pid)
	}
}
