//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/internal/scripted"
)

// tmuxSession runs the agent in a detached tmux session on a private
// socket, as a person would in a terminal of 100x30.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

// tmuxSockets numbers the tmux servers of this test process: each session
// gets its own, so one test's server still shutting down never meets the next.
var tmuxSockets atomic.Int64

func startTmux(t *testing.T, dir string, extraEnv, args []string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed, and CI must run this test")
		}
		t.Skip("tmux is not installed (apt-get install -y tmux)")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("agent-e2e-%d-%d", os.Getpid(), tmuxSockets.Add(1)), name: "agent"}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	env := strings.Join(append(baseEnv(t), extraEnv...), " ")
	// After the agent exits the pane shows its exit code and stays open;
	// with EXEC=1 in extraEnv the agent is the pane's process instead.
	script := fmt.Sprintf("cd '%s' && env -i %s TERM=xterm-256color %s %s; echo AGENT-EXITED-$?; sleep 600",
		dir, env, binary, strings.Join(quoted, " "))
	if slices.Contains(extraEnv, "EXEC=1") {
		script = fmt.Sprintf("cd '%s' && exec env -i %s TERM=xterm-256color %s %s", dir, env, binary, strings.Join(quoted, " "))
	}
	s.tmux("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	// The pane's process leads a session of its own: the agent and what
	// it started run in it until they exit, after tmux does.
	pane, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_pid}")))
	if err != nil {
		t.Fatalf("the pane's process id: %v", err)
	}
	t.Cleanup(func() {
		procs := processTree(pane)
		exec.Command("tmux", "-L", s.socket, "kill-server").Run()
		waitExited(t, procs, pane)
	})
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

// history is the terminal's whole text, the scrollback above the screen
// and the screen, wrapped lines joined.
func (s *tmuxSession) history() string {
	return s.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", s.name)
}

// keys types keys as tmux send-keys names them ("Enter", "Escape", "C-c")
// or literal text.
func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

func (s *tmuxSession) text(text string) { s.tmux("send-keys", "-t", s.name, "-l", text) }

// send types text and presses Enter, as a person sends a prompt.
func (s *tmuxSession) send(text string) {
	s.text(text)
	s.keys("Enter")
}

// allowOnce answers the waiting approval question with its first answer,
// "Allow once": it waits until the menu takes keys (the keyboard rested a
// second with the input empty), then presses Enter.
func (s *tmuxSession) allowOnce() {
	s.t.Helper()
	s.waitFor("↑/↓ choose")
	s.keys("Enter")
}

// waitFor polls the screen until it holds want. tmux offers no event for a
// changed screen, so this polls; the deadline only detects a hang.
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for {
		screen := s.screen()
		if strings.Contains(screen, want) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", want, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// idle waits until no turn runs: the status line (the one naming the
// approval mode) shows no spinner. An answer's last words can be on the
// screen a frame before its turn ends, and Ctrl+C then cancels the turn
// instead of quitting.
func (s *tmuxSession) idle() string {
	s.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for {
		screen := s.screen()
		for _, line := range strings.Split(screen, "\n") {
			if strings.Contains(line, " mode · ") && !strings.ContainsAny(line, spinnerFrames) {
				return screen
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("a turn never ended:\n%s", screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spinnerFrames are the glyphs of the interface's spinner (tui/status.go).
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// quit presses Ctrl+C once no turn runs and waits for the agent to exit
// with status 0; it returns the terminal as the agent left it.
func (s *tmuxSession) quit() string {
	s.t.Helper()
	s.idle()
	s.keys("C-c")
	return s.waitFor("AGENT-EXITED-0")
}

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
	)
	s := startTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.waitFor("Ask about this repository")

	s.send("which text files are here?")
	screen := s.waitFor("one text file")
	for _, want := range []string{"❯ which text files are here?", "list_files", "*.txt", "✓", "notes.txt", "scripted-model"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "**one**") {
		t.Errorf("markdown was not rendered:\n%s", screen)
	}

	s.send("now a slow one")
	s.waitFor("Walruses")
	s.keys("Escape")
	screen = s.waitFor("Cancelled.")
	if !strings.Contains(screen, "Walruses") {
		t.Errorf("the partial answer is gone after Esc:\n%s", screen)
	}

	s.quit()
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
		s := startTmux(t, t.TempDir(), env, args)
		s.waitFor("Ask about this repository")
		s.send("hi")
		s.waitFor("Some bold text")
		styled := s.tmux("capture-pane", "-e", "-p", "-t", s.name)
		has := hasColour(styled)
		if env == nil && !has {
			t.Errorf("no colour without NO_COLOR; the check would prove nothing:\n%q", styled)
		}
		if env != nil && has {
			t.Errorf("colour with NO_COLOR=1:\n%q", styled)
		}
		s.quit()
		exec.Command("tmux", "-L", s.socket, "kill-server").Run()
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
	s := startTmux(t, dir, []string{"EXEC=1"}, []string{"--base-url", srv.URL(), "--model", "scripted-model"})
	s.waitFor("Ask about this repository")
	s.send("start a long command")
	s.waitFor("Allow bash to run this command?")
	s.allowOnce()
	sleeper := childFromFIFO(t, fifo)
	agentPID, err := strconv.Atoi(strings.TrimSpace(s.tmux("list-panes", "-t", s.name, "-F", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Kill(agentPID, unix.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !sleeper.ended() {
		t.Errorf("the approved command's child %d outlived the hung-up agent", sleeper.pid)
	}
}

// TestInterfaceContinuesAHeadlessSession: a session started with -p is
// continued in the interface with -c, its conversation shown.
func TestInterfaceContinuesAHeadlessSession(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.New(t, scripted.Text("Pelicans fly south."), scripted.Text("Yes, still south."))
	if res := run(t, invocation{dir: dir, args: agentArgs(srv, "--db", db, "-p", "where do pelicans fly?")}); res.code != 0 {
		t.Fatalf("headless run: exit %d: %s", res.code, res.stderr)
	}
	s := startTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--db", db, "-c"})
	screen := s.waitFor("Pelicans fly south.")
	if !strings.Contains(screen, "where do pelicans fly?") {
		t.Errorf("the earlier prompt is not shown:\n%s", screen)
	}
	s.send("still?")
	s.waitFor("Yes, still south.")
	s.quit()
	if got := roles(srv.Requests()[1]); strings.Join(got, " | ") != "system | user:where do pelicans fly? | assistant:Pelicans fly south. | user:still?" {
		t.Errorf("continued request: %v", got)
	}
}
