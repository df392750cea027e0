//go:build linux

package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// startVim starts the interface with vim = true in its config file.
func startVim(t *testing.T, srv *scripted.Server) *e2e.TmuxSession {
	t.Helper()
	config := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(config, []byte("vim = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model",
		"--max-retries", "0", "--config", config, "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("-- INSERT --")
	return s
}

// toNormal presses Esc and waits for normal mode, so that the next key is
// not read as Alt with it.
func toNormal(s *e2e.TmuxSession) {
	s.Keys("Escape")
	s.WaitFor("-- NORMAL --")
}

// inputRows are the input's rows on the screen (its prompt is "│ ").
func inputRows(screen string) []string {
	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		if r, ok := strings.CutPrefix(l, "│ "); ok {
			if r = strings.TrimRight(r, " "); r != "" {
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// waitInput waits until the input shows want, row by row.
func waitInput(t *testing.T, s *e2e.TmuxSession, want ...string) {
	t.Helper()
	s.WaitUntil(fmt.Sprintf("the input %q", want), func(screen string) bool {
		return strings.Join(inputRows(screen), "\n") == strings.Join(want, "\n")
	})
}

// Normal mode's motions and edits on a multi-line input, then Enter in
// normal mode sends what they left.
func TestVimNormalModeEditsAMultiLineInput(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("Received the edited prompt."))
	s := startVim(t, srv)
	s.Text("alpha beta")
	s.Keys("C-j")
	s.Text("gamma delta")
	waitInput(t, s, "alpha beta", "gamma delta")
	toNormal(s)

	s.Text("ggdw") // to the first line, delete a word
	waitInput(t, s, "beta", "gamma delta")
	s.Text("j$x") // down, to the line's end, delete the rune there
	waitInput(t, s, "beta", "gamma delt")
	s.Text("u") // undo
	waitInput(t, s, "beta", "gamma delta")
	s.Text("0cwepsilon") // change the first word of the second line
	waitInput(t, s, "beta", "epsilon delta")
	toNormal(s)
	s.Text("kA!") // append to the first line
	waitInput(t, s, "beta!", "epsilon delta")
	toNormal(s)
	s.Text("yyjp") // copy the first line under the second
	waitInput(t, s, "beta!", "epsilon delta", "beta!")
	s.Text("dd") // and delete it again
	waitInput(t, s, "beta!", "epsilon delta")
	s.Text("qz") // no command: nothing reaches the text
	s.Text("$x")
	waitInput(t, s, "beta!", "epsilon delt")

	s.Keys("Enter") // Enter in normal mode sends
	s.WaitFor("Received the edited prompt.")
	if got := e2e.LastUserText(srv.Requests()[0]); got != "beta!\nepsilon delt" {
		t.Errorf("sent %q", got)
	}
	s.WaitFor("-- INSERT --") // the next prompt is typed at once
	s.Quit()
}

// Esc in insert mode goes to normal mode and leaves a running turn alone
// (it goes on and finishes); Ctrl+C cancels one.
func TestVimEscInInsertModeLeavesTheTurnRunning(t *testing.T) {
	t.Parallel()
	first, second := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(second) })
	srv := scripted.New(t,
		scripted.Text("Walruses stream slowly and then the rest").WithPieceSize(4).HoldAfterEvents(3, first),
		scripted.Text("Otters stream slowly and never finish").WithPieceSize(4).HoldAfterEvents(3, second),
	)
	s := startVim(t, srv)
	s.Send("first question")
	s.WaitFor("Walruses")
	s.Text("draft")
	toNormal(s) // a turn runs: Esc only leaves insert mode
	close(first)
	screen := s.WaitFor("and then the rest") // the turn finished its answer
	if strings.Contains(screen, "Cancelled.") {
		t.Errorf("Esc in insert mode cancelled the turn:\n%s", screen)
	}
	s.Idle()

	s.Keys("Enter") // normal mode: sends "draft"
	s.WaitFor("Otters")
	s.Keys("C-c")
	screen = s.WaitFor("Cancelled.")
	if strings.Contains(screen, "never finish") {
		t.Errorf("the turn went on after Ctrl+C:\n%s", screen)
	}
	if got := e2e.LastUserText(srv.Requests()[1]); got != "draft" {
		t.Errorf("the second prompt was %q", got)
	}
	s.Quit()
}
