package tui

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/providers/fake"
)

// cmdName is the name of cmd's function, such as
// "charm.land/bubbletea/v2.Tick.func1".
func cmdName(cmd tea.Cmd) string {
	return runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
}

// timerCmds names the commands in cmd that wait on a clock: a cursor's
// blink, a tick of Bubble Tea or of the spinner. Batches and sequences are
// opened (they return their commands at once); no other command is run.
func timerCmds(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	name := cmdName(cmd)
	if strings.Contains(name, "compactCmds") {
		// Batch and Sequence wrap their commands in a function of
		// Bubble Tea's (compactCmds, maybe inlined into the caller's
		// name) that returns them.
		var inner []tea.Cmd
		if v := reflect.ValueOf(cmd()); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
			for i := range v.Len() {
				inner = append(inner, v.Index(i).Interface().(tea.Cmd))
			}
		}
		var timers []string
		for _, c := range inner {
			timers = append(timers, timerCmds(c)...)
		}
		return timers
	}
	for _, timer := range []string{".Tick", ".Every", "Blink", "/tui.tick."} {
		if strings.Contains(name, timer) {
			return []string{name}
		}
	}
	return nil
}

// The idle interface sets no timer of its own: the cursor is the
// terminal's, which blinks without redrawing the screen, and nothing else
// ticks until a turn runs. (Bubble Tea's own frames are written only when a
// view changed: see third_party/bubbletea/PATCH.md.)
// The one exception is once, at start: when the theme follows the
// terminal's background and none is remembered, the question to the
// terminal has a timeout.
func TestIdleInterfaceSetsNoTimer(t *testing.T) {
	t.Setenv("TERM_PROGRAM", "idle-test-terminal")
	cfg := config(t, fake.New(), t.TempDir(), NewApprover())
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if timers := timerCmds(m.Init()); len(timers) != 1 {
		t.Errorf("Init sets timers %v; want the background question's timeout alone", timers)
	}
	cfg.Theme = "dark"
	m, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if timers := timerCmds(m.Init()); len(timers) > 0 {
		t.Errorf("Init sets timers in a theme of its own: %v", timers)
	}
	for _, msg := range []tea.Msg{
		tea.WindowSizeMsg{Width: 100, Height: 30},
		bgTimeoutMsg{},
		tea.FocusMsg{},
		tea.KeyPressMsg{Code: 'h', Text: "h"},
		tea.KeyPressMsg{Code: 'i', Text: "i"},
		tea.KeyPressMsg{Code: tea.KeyLeft},
		tea.BlurMsg{},
	} {
		_, cmd := m.Update(msg)
		if timers := timerCmds(cmd); len(timers) > 0 {
			t.Errorf("after %T the interface sets timers: %v", msg, timers)
		}
	}
}

// The terminal's cursor stands where the person types: in the input, after
// what was typed.
func TestCursorStandsWhereThePersonTypes(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), NewApprover()))
	d.untilShows("Ask about this repository")
	d.key("hello")
	v := d.m.View()
	if v.Cursor == nil {
		t.Fatalf("no cursor on the screen:\n%s", d.screen())
	}
	rows := strings.Split(ansi.Strip(v.Content), "\n")
	if y := v.Cursor.Y; y < 0 || y >= len(rows) || !strings.HasSuffix(ansi.Cut(rows[y], 0, v.Cursor.X), "│ hello") {
		t.Errorf("cursor at column %d of row %d, not after the typed text:\n%s", v.Cursor.X, v.Cursor.Y, ansi.Strip(v.Content))
	}
}

// While a question's menu takes the keys, no cursor shows in the input:
// typing goes to the menu.
func TestCursorHiddenWhileAQuestionTakesKeys(t *testing.T) {
	d, _, _ := askBash(t, "echo hi", "Done.")
	d.wait(approvalQuiet)
	if !d.m.approvalTakesKeys() {
		t.Fatal("the question's menu does not take keys after a quiet keyboard")
	}
	if c := d.m.View().Cursor; c != nil {
		t.Errorf("cursor at %d,%d while the menu takes the keys:\n%s", c.X, c.Y, d.screen())
	}
	d.key("esc")
	d.until("the question gone", func(string) bool { return d.m.approving == nil })
	if d.m.View().Cursor == nil {
		t.Errorf("no cursor in the input once the question is gone:\n%s", d.screen())
	}
}
