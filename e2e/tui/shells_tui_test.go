//go:build linux

package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestCtrlBAndShellsInTheInterface is issue 37's interface: the model runs
// a long command, the person presses Ctrl+B while it runs, the call returns
// to the model saying the command went to the background, the status line
// counts it, /shells lists it running, and k stops it from the list: its
// process is gone.
func TestCtrlBAndShellsInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The output, "server-up", is not in the command's text, which the
	// call's block shows from the start.
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s", Name: "bash", Arguments: `{"command":"sleep 600 & echo $! > pid.fifo; printf 'server-%s\\n' up; wait"}`}),
		scripted.Text("The server runs on in the background."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--permission-mode", "auto",
		"--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	s.Send("start the server")
	sleeper := e2e.ChildFromFIFO(t, fifo)
	s.WaitFor("server-up")
	s.Keys("C-b")
	screen := s.WaitFor("The server runs on in the background.")
	if !strings.Contains(screen, "sent the command to the background") {
		t.Errorf("the call's result does not say the command went to the background:\n%s", screen)
	}
	if out := e2e.ToolOutputs(srv.Requests()[1].Chat); len(out) != 1 || !strings.Contains(out[0], "The user sent the command to the background") ||
		!strings.Contains(out[0], "as bash_1") {
		t.Errorf("the model read %q", out)
	}
	s.WaitFor("auto mode · 1 shell · ")

	s.Idle()
	s.Send("/shells")
	s.WaitFor("bash_1   running")
	s.WaitFor("      server-up") // its last line, read in a moment; the pane's block has it less indented
	s.Keys("k")
	s.WaitFor("bash_1   stopped")
	if !sleeper.Ended() {
		t.Errorf("the stopped shell's process %d still runs", sleeper.Pid)
	}
	s.Keys("Escape")
	screen = s.WaitFor("Stopped background shell bash_1")
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, " mode · ") && strings.Contains(line, "shell") {
			t.Errorf("the status line still counts a shell: %q", line)
		}
	}
	s.Quit()
}
