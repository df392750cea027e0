package headless

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestSignalsStopARunningCommand sends each signal that ends a run while a
// bash command runs, and checks the exit code and that the command's child
// is gone.
func TestSignalsStopARunningCommand(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { signalDuringCommand(t, sig) })
	}
}

func signalDuringCommand(t *testing.T, sig syscall.Signal) {
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
	cmd, sc, stderr := e2e.StartAgent(t, dir, e2e.AgentArgs(srv, "-p", "--allow-bash", "--output-format", "stream-json", "wait"))
	e2e.WaitForEvent(t, sc, "tool_call_started")
	sleeper := e2e.ChildFromFIFO(t, fifo)

	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	e2e.WaitForEvent(t, sc, "result")
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr)
	}
	if !sleeper.Ended() {
		t.Errorf("the command's child %d outlived the interrupted run", sleeper.Pid)
	}
}

func TestInterruptWhileWaitingForStandardInput(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte("some input, then the writer stays open\n"))
	srv := scripted.New(t)
	agent := e2e.Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, e2e.AgentArgs(srv, "-p", "-v", "summarise")...)
	cmd.Dir, cmd.Env, cmd.Stdin = t.TempDir(), e2e.BaseEnv(t), r
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// With -v the agent says when it starts reading standard input; its
	// signal handling is in place by then.
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() || !strings.Contains(sc.Text(), "reading standard input") {
		t.Fatalf("first stderr line %q", sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(stderr)
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, out)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("an interrupted run sent a request")
	}
}

func TestInterruptPrintsThePartialAnswerInTextMode(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t, scripted.Text("Partial words and more.").WithPieceSize(4).HoldAfterEvents(3, hold))
	agent := e2e.Agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agent, e2e.AgentArgs(srv, "-p", "hi")...)
	cmd.Dir, cmd.Env = t.TempDir(), e2e.BaseEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The held stream is the synchronisation point: once the server has a
	// request, the deltas before the hold are on their way or delivered.
	if err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := e2e.ExitCodeOf(t, cmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q should say the run was interrupted", stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); !strings.HasPrefix("Partial words and more.", got) {
		t.Errorf("stdout %q should be a prefix of the answer", got)
	}
}

// TestAgentsMDCannotLeakOrBlock: an AGENTS.md that is a symlink to a file
// outside the working directory is not read, and one that is a FIFO does
// not block the start.
func TestAgentsMDCannotLeakOrBlock(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(secret, []byte("aws_secret_access_key = LEAKED\n"), 0o600)
	linked := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(linked, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	fifo := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(fifo, "AGENTS.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"symlink out": linked, "fifo": fifo} {
		srv := scripted.New(t, scripted.Text("ok"))
		res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "hi")})
		if res.Code != 0 {
			t.Errorf("%s: exit %d: %s", name, res.Code, res.Stderr)
			continue
		}
		if sys := srv.Requests()[0].Chat.Messages[0].Text(); strings.Contains(sys, "LEAKED") || strings.Contains(sys, "agents_md") {
			t.Errorf("%s: system prompt holds AGENTS.md content:\n%s", name, sys)
		}
	}
}
