package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TmuxSession runs the agent in a detached tmux session on a private
// socket, as a person would in a terminal of 100x30.
type TmuxSession struct {
	t      *testing.T
	Socket string
	Name   string
}

// tmuxSockets numbers the tmux servers of this test process: each session
// gets its own, so one test's server still shutting down never meets the next.
var tmuxSockets atomic.Int64

// StartTmux starts the agent with args in dir, in a new tmux session, with
// extraEnv added to BaseEnv; the test is skipped without tmux (failed in
// CI). When the test ends, the tmux server is killed and every process of
// the pane's session waited for.
func StartTmux(t *testing.T, dir string, extraEnv, args []string) *TmuxSession {
	t.Helper()
	return StartTmuxWithConfig(t, dir, "", extraEnv, args)
}

// StartTmuxWithConfig is StartTmux with tmuxConf, the text of a tmux
// configuration file, read by the new tmux server ("": none). For example
// `set -g window-style "bg=#ffffff"` makes tmux answer a pane's OSC 11
// question with a white background; without it a detached tmux (3.3)
// answers nothing.
func StartTmuxWithConfig(t *testing.T, dir, tmuxConf string, extraEnv, args []string) *TmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed, and CI must run this test")
		}
		t.Skip("tmux is not installed (apt-get install -y tmux)")
	}
	s := &TmuxSession{t: t, Socket: fmt.Sprintf("agent-e2e-%d-%d", os.Getpid(), tmuxSockets.Add(1)), Name: "agent"}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	agent := Agent(t)
	env := strings.Join(append(BaseEnv(t), extraEnv...), " ")
	// After the agent exits the pane shows its exit code and stays open;
	// with EXEC=1 in extraEnv the agent is the pane's process instead.
	script := fmt.Sprintf("cd '%s' && env -i %s TERM=xterm-256color %s %s; echo AGENT-EXITED-$?; sleep 600",
		dir, env, agent, strings.Join(quoted, " "))
	if slices.Contains(extraEnv, "EXEC=1") {
		script = fmt.Sprintf("cd '%s' && exec env -i %s TERM=xterm-256color %s %s", dir, env, agent, strings.Join(quoted, " "))
	}
	newSession := []string{"new-session", "-d", "-s", s.Name, "-x", "100", "-y", "30", script}
	if tmuxConf != "" {
		conf := filepath.Join(t.TempDir(), "tmux.conf")
		if err := os.WriteFile(conf, []byte(tmuxConf), 0o644); err != nil {
			t.Fatal(err)
		}
		newSession = append([]string{"-f", conf}, newSession...)
	}
	s.Tmux(newSession...)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.Socket, "kill-server").Run() })
	// The pane's process leads a session of its own: the agent and what
	// it started run in it until they exit, after tmux does.
	pane, err := strconv.Atoi(strings.TrimSpace(s.Tmux("display-message", "-p", "-t", s.Name, "#{pane_pid}")))
	if err != nil {
		t.Fatalf("the pane's process id: %v", err)
	}
	t.Cleanup(func() {
		procs := ProcessTree(pane)
		exec.Command("tmux", "-L", s.Socket, "kill-server").Run()
		WaitExited(t, procs, pane)
	})
	return s
}

// Tmux runs a tmux command on the session's server and returns its output;
// a failing command fails the test.
func (s *TmuxSession) Tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.Socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Screen is the text of the screen as it is now.
func (s *TmuxSession) Screen() string { return s.Tmux("capture-pane", "-p", "-t", s.Name) }

// History is the terminal's whole text, the scrollback above the screen
// and the screen, wrapped lines joined.
func (s *TmuxSession) History() string {
	return s.Tmux("capture-pane", "-p", "-J", "-S", "-", "-t", s.Name)
}

// Keys types keys as tmux send-keys names them ("Enter", "Escape", "C-c")
// or literal text.
func (s *TmuxSession) Keys(keys ...string) {
	s.Tmux(append([]string{"send-keys", "-t", s.Name}, keys...)...)
}

// Text types text literally.
func (s *TmuxSession) Text(text string) { s.Tmux("send-keys", "-t", s.Name, "-l", text) }

// Send types text and presses Enter, as a person sends a prompt.
func (s *TmuxSession) Send(text string) {
	s.Text(text)
	s.Keys("Enter")
}

// AllowOnce answers the waiting approval question with its first answer,
// "Allow once": it waits until the menu takes keys (the keyboard rested a
// second with the input empty), then presses Enter.
func (s *TmuxSession) AllowOnce() {
	s.t.Helper()
	s.WaitFor("↑/↓ choose")
	s.Keys("Enter")
}

// WaitFor polls the screen until it holds want. tmux offers no event for a
// changed screen, so this polls; the deadline only detects a hang.
func (s *TmuxSession) WaitFor(want string) string {
	s.t.Helper()
	return s.WaitUntil(strconv.Quote(want), func(screen string) bool { return strings.Contains(screen, want) })
}

// WaitUntil polls the screen until ok holds for it, as WaitFor does; what
// names the wait in the failure.
func (s *TmuxSession) WaitUntil(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		screen := s.Screen()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s:\n%s", what, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Idle waits until no turn runs: the status line (the one naming the
// approval mode) shows no spinner. An answer's last words can be on the
// Screen a frame before its turn ends, and Ctrl+C then cancels the turn
// instead of quitting.
func (s *TmuxSession) Idle() string {
	s.t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		screen := s.Screen()
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

// Quit presses Ctrl+C once no turn runs and waits for the agent to exit
// with status 0; it returns the terminal as the agent left it.
func (s *TmuxSession) Quit() string {
	s.t.Helper()
	s.Idle()
	s.Keys("C-c")
	return s.WaitFor("AGENT-EXITED-0")
}
