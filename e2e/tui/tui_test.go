//go:build linux

package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

func TestInterfaceInTmux(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "l", Name: "list_files", Arguments: `{"pattern":"*.txt"}`}),
		scripted.Text("There is **one** text file: notes.txt."),
		scripted.Text("Walruses stream slowly and then the rest").WithPieceSize(4).HoldAfterEvents(3, hold),
		scripted.Text("Going on from the cut."),
	)
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")

	s.Send("which text files are here?")
	screen := s.WaitFor("one text file")
	for _, want := range []string{"❯ which text files are here?", "list_files", "*.txt", "✓", "notes.txt", "scripted-model"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "**one**") {
		t.Errorf("markdown was not rendered:\n%s", screen)
	}

	s.Send("now a slow one")
	s.WaitFor("Walruses")
	s.Keys("Escape")
	screen = s.WaitFor("Cancelled.")
	if !strings.Contains(screen, "Walruses") {
		t.Errorf("the partial answer is gone after Esc:\n%s", screen)
	}
	// The model is told its answer was cut where the person stopped it.
	s.Send("go on")
	s.WaitFor("Going on from the cut.")
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "Walruses") || !strings.Contains(body, "[Interrupted by the user]") {
		t.Errorf("the next request does not mark the cut answer:\n%s", body)
	}

	s.Quit()
}

// sgr matches a Select Graphic Rendition sequence and captures its
// parameters.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether styled text sets a foreground or background
// colour (basic, bright, 256 or true colour); 39 and 49 only reset them.
func hasColour(styled string) bool {
	for _, m := range sgr.FindAllStringSubmatch(styled, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				return true
			}
		}
	}
	return false
}

func TestInterfaceHonoursNoColor(t *testing.T) {
	t.Parallel()
	answer := scripted.Text("Some **bold** text and `code`.")
	srv := scripted.New(t, answer, answer)
	args := []string{"--base-url", srv.URL(), "--model", "scripted-model"}
	for _, env := range [][]string{nil, {"NO_COLOR=1"}} {
		s := e2e.StartTmux(t, t.TempDir(), env, args)
		s.WaitFor("Ask about this repository")
		s.Send("hi")
		s.WaitFor("Some bold text")
		styled := s.Tmux("capture-pane", "-e", "-p", "-t", s.Name)
		has := hasColour(styled)
		if env == nil && !has {
			t.Errorf("no colour without NO_COLOR; the check would prove nothing:\n%q", styled)
		}
		if env != nil && has {
			t.Errorf("colour with NO_COLOR=1:\n%q", styled)
		}
		s.Quit()
		exec.Command("tmux", "-L", s.Socket, "kill-server").Run()
	}
}

// TestHangupStopsAnApprovedCommand approves a command in the interface, then
// hangs up the terminal (SIGHUP to the agent): the command's child must not
// outlive the agent.
func TestHangupStopsAnApprovedCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s", Name: "bash", Arguments: `{"command":"sleep 300 & echo $! > pid.fifo; wait"}`}),
		scripted.Text("never shown").HoldAfterEvents(0, hold),
	)
	s := e2e.StartTmux(t, dir, []string{"EXEC=1"}, []string{"--base-url", srv.URL(), "--model", "scripted-model"})
	s.WaitFor("Ask about this repository")
	s.Send("start a long command")
	s.WaitFor("Allow bash to run this command?")
	s.AllowOnce()
	sleeper := e2e.ChildFromFIFO(t, fifo)
	agentPID, err := strconv.Atoi(strings.TrimSpace(s.Tmux("list-panes", "-t", s.Name, "-F", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Kill(agentPID, unix.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !sleeper.Ended() {
		t.Errorf("the approved command's child %d outlived the hung-up agent", sleeper.Pid)
	}
}

// TestInterfaceContinuesAHeadlessSession: a session started with -p is
// continued in the interface with -c, its conversation shown.
func TestInterfaceContinuesAHeadlessSession(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text("Pelicans fly south."), scripted.Text("Yes, still south."))
	if res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "where do pelicans fly?")}); res.Code != 0 {
		t.Fatalf("headless run: exit %d: %s", res.Code, res.Stderr)
	}
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--db", db, "-c"})
	screen := s.WaitFor("Pelicans fly south.")
	if !strings.Contains(screen, "where do pelicans fly?") {
		t.Errorf("the earlier prompt is not shown:\n%s", screen)
	}
	s.Send("still?")
	s.WaitFor("Yes, still south.")
	s.Quit()
	if got := e2e.Roles(srv.Requests()[1]); strings.Join(got, " | ") != "system | user:where do pelicans fly? | assistant:Pelicans fly south. | user:still?" {
		t.Errorf("continued request: %v", got)
	}
}
