package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/internal/scripted"
)

func TestInterruptStopsARunningCommand(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s", Name: "bash", Arguments: `{"command":"sleep 300 & echo $! > pid.fifo; wait"}`}),
		scripted.Text("never reached").HoldAfterEvents(0, hold),
	)
	cmd, sc, stderr := startAgent(t, dir, agentArgs(srv, "-p", "--allow-bash", "--output-format", "stream-json", "wait"))
	waitFor(t, sc, "tool_call_started")
	// Opening the FIFO blocks until the command writes the sleeper's pid.
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q: %v", data, err)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(pidfd)

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sc, "result")
	if code := exitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	// A pidfd becomes readable when its process ends.
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(hangLimit.Milliseconds()))
	if err != nil || n != 1 {
		t.Errorf("the command's child %d outlived the interrupted run (poll: %d, %v)", pid, n, err)
	}
}
