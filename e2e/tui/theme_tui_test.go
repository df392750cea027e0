//go:build linux

package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// themeEnv is the environment of a run whose prefs file is
// data/agent/prefs.json and whose terminal is named TestTerm.
func themeEnv(data string) []string {
	return []string{"XDG_DATA_HOME=" + data, "TERM_PROGRAM=TestTerm"}
}

// readPrefs reads the prefs file as JSON ("{}" while there is none).
func readPrefs(t *testing.T, data string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "agent", "prefs.json"))
	if os.IsNotExist(err) {
		return map[string]any{}
	}
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("prefs.json: %v\n%s", err, b)
	}
	return p
}

// waitPrefs polls the prefs file until ok holds; the deadline only
// detects a hang (the file is written by a command of the interface, with
// no event a test can wait on).
func waitPrefs(t *testing.T, data string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(e2e.HangLimit)
	for {
		p := readPrefs(t, data)
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("prefs.json never became as expected: %v", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lineWith is the line of the styled screen whose text holds want.
func lineWith(t *testing.T, styled, want string) string {
	t.Helper()
	for _, l := range strings.Split(styled, "\n") {
		if strings.Contains(sgr.ReplaceAllString(l, ""), want) {
			return l
		}
	}
	t.Fatalf("no line holds %q:\n%q", want, styled)
	return ""
}

// /theme switches at once: the prompt already on the screen is drawn again
// in the new colours, and the choice is remembered.
func TestThemeSwitchRedrawsInTmux(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := scripted.New(t, scripted.Text("Some **bold** text and `code`."))
	s := e2e.StartTmux(t, t.TempDir(), themeEnv(data), e2e.AgentArgs(srv))
	s.WaitFor("Ask about this repository")
	s.Send("colour me")
	s.WaitFor("Some bold text")
	s.Idle()
	before := lineWith(t, s.Tmux("capture-pane", "-e", "-p", "-t", s.Name), "colour me")
	if !hasColour(before) {
		t.Fatalf("the prompt has no colour; the check would prove nothing: %q", before)
	}
	s.Send("/theme high-contrast")
	s.WaitFor("Theme: high-contrast.")
	after := lineWith(t, s.Tmux("capture-pane", "-e", "-p", "-t", s.Name), "colour me")
	if after == before {
		t.Errorf("the prompt kept its colours after /theme: %q", after)
	}
	waitPrefs(t, data, func(p map[string]any) bool { return p["theme"] == "high-contrast" })
	s.Quit()
}

// A terminal that answers OSC 11 (tmux with a white window background):
// auto turns light and the answer is remembered for the terminal.
func TestAutoThemeTakesTheTerminalsAnswerInTmux(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := scripted.New(t)
	s := e2e.StartTmuxWithConfig(t, t.TempDir(), `set -g window-style "bg=#ffffff"`+"\n", themeEnv(data), e2e.AgentArgs(srv))
	s.WaitFor("Ask about this repository")
	p := waitPrefs(t, data, func(p map[string]any) bool { return p["terminal_backgrounds"] != nil })
	if bg := p["terminal_backgrounds"].(map[string]any)["TestTerm"]; bg != "light" {
		t.Errorf("remembered %v for TestTerm, want light", p["terminal_backgrounds"])
	}
	s.Send("/theme")
	s.WaitFor("auto (the terminal's background: light)")
	s.Quit()
}

// A terminal that never answers (a detached tmux with its default style):
// the interface does not wait for it, stays dark, and remembers nothing.
func TestAutoThemeWithASilentTerminalInTmux(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := scripted.New(t)
	s := e2e.StartTmux(t, t.TempDir(), themeEnv(data), e2e.AgentArgs(srv))
	s.WaitFor("Ask about this repository")
	s.Send("/theme")
	s.WaitFor("auto (the terminal's background: not known, dark)")
	s.Quit()
	if p := readPrefs(t, data); p["terminal_backgrounds"] != nil {
		t.Errorf("remembered %v without an answer", p["terminal_backgrounds"])
	}
}
