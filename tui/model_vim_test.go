package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/prefs"
	"github.com/agent-dev/agent/providers/fake"
)

// vimDriver is a driver with vim keys on (the config file's vim = true).
func vimDriver(t *testing.T, srv *fake.Provider) *driver {
	t.Helper()
	cfg := config(t, srv, t.TempDir(), nil)
	on := true
	cfg.Vim = &on
	return newDriver(t, cfg)
}

func ctrlJ() tea.KeyPressMsg { return tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl} }

// inputWithCursor is the input as withCursor reads it.
func inputWithCursor(m *Model) string { return showCursor(m.inputText()) }

func TestVimEditsAMultiLineInputAndEnterSendsIt(t *testing.T) {
	srv := fake.New(fake.Text("Done."))
	d := vimDriver(t, srv)
	d.untilShows("-- INSERT --")
	d.key("alpha beta")
	d.update(ctrlJ())
	d.key("gamma delta")
	d.key("esc")
	d.untilShows("-- NORMAL --")
	if got := inputWithCursor(d.m); got != "alpha beta\ngamma delt|a" {
		t.Fatalf("after Esc: %q", got)
	}
	for _, step := range []struct{ keys, want string }{
		{"gg", "|alpha beta\ngamma delta"},
		{"dw", "|beta\ngamma delta"},
		{"j$", "beta\ngamma delt|a"},
		{"x", "beta\ngamma del|t"},
		{"u", "beta\ngamma delt|a"},
		{"0cwepsilon", "beta\nepsilon| delta"},
	} {
		d.key(step.keys)
		if got := inputWithCursor(d.m); got != step.want {
			t.Fatalf("after %q: %q, want %q", step.keys, got, step.want)
		}
	}
	d.key("esc")
	d.key("kA!")
	d.key("esc")
	d.key("enter") // Enter in normal mode sends
	d.untilShows("Done.")
	msgs := srv.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Text(); got != "beta!\nepsilon delta" {
		t.Errorf("sent %q", got)
	}
	if d.m.input.Value() != "" || d.m.vim.mode != vimInsertMode || !strings.Contains(d.screen(), "-- INSERT --") {
		t.Errorf("after sending: input %q, mode %v; want an empty input in insert mode", d.m.input.Value(), d.m.vim.mode)
	}
}

func TestVimNormalModeKeepsTypedLettersOutOfTheText(t *testing.T) {
	d := vimDriver(t, fake.New())
	d.key("one")
	d.key("esc")
	d.key("zqvZQ!#")  // no command of vim's, or of the engine's
	d.update(ctrlJ()) // the textarea's newline
	d.update(tea.KeyPressMsg{Code: 'k', Mod: tea.ModCtrl})
	if got := d.m.input.Value(); got != "one" {
		t.Errorf("normal mode let keys into the text: %q", got)
	}
	d.key("?") // help only on an empty input
	if d.m.help.ShowAll {
		t.Errorf("? with text in the input opened the help")
	}
	d.key("dd")
	d.key("?")
	if !d.m.help.ShowAll {
		t.Errorf("? on an empty input in normal mode did not open the help")
	}
}

func TestVimShowsThePendingCommand(t *testing.T) {
	d := vimDriver(t, fake.New())
	d.key("a b c")
	d.key("esc")
	d.key("2d")
	d.untilShows("-- NORMAL -- 2d")
	d.key("esc") // drops the command, cancels nothing
	d.untilShows("-- NORMAL --")
	if strings.Contains(d.screen(), "2d") || d.m.input.Value() != "a b c" {
		t.Errorf("Esc did not drop the pending 2d: %q\n%s", d.m.input.Value(), d.screen())
	}
}

func TestVimEscInInsertModeDoesNotCancelATurnAndCtrlCDoes(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras keep streaming and streaming.").WithPieceSize(6).HoldAfterEvents(2, hold))
	d := vimDriver(t, srv)
	d.typeAndSend("go")
	d.untilShows("Zebras")
	d.key("next")
	d.key("esc")
	if !d.m.running {
		t.Fatal("Esc in insert mode cancelled the turn")
	}
	if d.m.vim.mode != vimNormalMode || d.m.input.Value() != "next" {
		t.Fatalf("Esc in insert mode: mode %v, input %q", d.m.vim.mode, d.m.input.Value())
	}
	d.key("ctrl+c")
	d.untilShows("Cancelled.")
	if d.quit {
		t.Errorf("Ctrl+C in a turn quit")
	}
}

func TestVimEscInNormalModeStillCancelsATurn(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras keep streaming and streaming.").WithPieceSize(6).HoldAfterEvents(2, hold))
	d := vimDriver(t, srv)
	d.typeAndSend("go")
	d.untilShows("Zebras")
	d.key("esc") // insert → normal
	d.key("esc") // normal: today's Esc
	d.untilShows("Cancelled.")
}

func TestVimArrowsRecallPromptsOnTheEdgeLines(t *testing.T) {
	srv := fake.New(fake.Text("one"), fake.Text("two"))
	d := vimDriver(t, srv)
	d.typeAndSend("first prompt")
	d.untilShows("one")
	d.key("x")
	d.update(ctrlJ())
	d.key("y")
	d.key("esc")
	d.key("up") // on the second line: a motion
	if got := inputWithCursor(d.m); got != "|x\ny" {
		t.Fatalf("up on the last line: %q", got)
	}
	d.key("up") // on the first line: the earlier prompt
	if got := d.m.input.Value(); got != "first prompt" {
		t.Errorf("up on the first line: %q", got)
	}
}

func TestVimCommandSwitchesAndRemembers(t *testing.T) {
	file := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = file
	d := newDriver(t, cfg)
	if d.m.vim != nil || strings.Contains(d.screen(), "INSERT") {
		t.Fatal("vim keys on with nothing set")
	}
	d.typeAndSend("/vim")
	d.untilShows("-- INSERT --")
	d.until("the choice saved", func(string) bool {
		p, err := file.Load()
		return err == nil && p.Vim != nil && *p.Vim
	})
	// A new interface starts as /vim left it.
	cfg2 := config(t, fake.New(), t.TempDir(), nil)
	cfg2.Prefs = file
	if d2 := newDriver(t, cfg2); d2.m.vim == nil {
		t.Errorf("the remembered choice was not used")
	}
	d.typeAndSend("/vim off")
	d.until("vim keys off", func(s string) bool { return !strings.Contains(s, "INSERT") && d.m.vim == nil })
	d.until("the choice saved", func(string) bool {
		p, err := file.Load()
		return err == nil && p.Vim != nil && !*p.Vim
	})
}

func TestVimCommandUnderTheConfigFileRemembersNothing(t *testing.T) {
	file := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = file
	off := false
	cfg.Vim = &off
	d := newDriver(t, cfg)
	d.typeAndSend("/vim on")
	d.untilShows("this lasts for this run")
	if d.m.vim == nil {
		t.Fatal("/vim on did not switch")
	}
	if p, err := file.Load(); err != nil || p.Vim != nil {
		t.Errorf("prefs were written under the config file's vim: %+v %v", p, err)
	}
	d.typeAndSend("/vim sideways")
	d.untilShows("Usage: /vim")
}

func TestVimSettingOrder(t *testing.T) {
	yes, no := true, false
	remembered := func(t *testing.T, v *bool) *prefs.File {
		f := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
		if err := f.Update(func(p *prefs.Prefs) { p.Vim = v }); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, c := range []struct {
		name   string
		config *bool
		prefs  *bool
		want   bool
	}{
		{"nothing set: off", nil, nil, false},
		{"prefs alone", nil, &yes, true},
		{"the config file wins", &no, &yes, false},
		{"the config file alone", &yes, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := vimSetting(Config{Vim: c.config, Prefs: remembered(t, c.prefs)})
			if err != nil || got != c.want {
				t.Errorf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
	got, err := vimSetting(Config{})
	if got || err != nil {
		t.Errorf("nil prefs: %v %v", got, err)
	}
}

// setInputText puts the cursor on the row and column asked for, also on a
// row the textarea wraps into several screen rows.
func TestVimCursorLandsOnWrappedRows(t *testing.T) {
	d := vimDriver(t, fake.New())
	d.update(tea.WindowSizeMsg{Width: 30, Height: 30})
	long := strings.Repeat("word ", 20)
	for _, want := range []vimText{
		newVimText(long+"\n"+long+"\nend", 1, 57),
		newVimText(long+"\n"+long+"\nend", 2, 1),
		newVimText("日本語\n"+long, 1, 90),
		newVimText("", 0, 0),
	} {
		d.m.setInputText(want)
		if got := d.m.inputText(); showCursor(got) != showCursor(want) {
			t.Errorf("cursor at %q, want %q", showCursor(got), showCursor(want))
		}
	}
}

// Vim keys set no timer: the idle interface costs what it cost without
// them (TestIdleInterfaceSetsNoTimer).
func TestVimKeysSetNoTimer(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), NewApprover())
	on := true
	cfg.Vim = &on
	cfg.Theme = "dark" // auto's one timer, the background question's timeout, is TestIdleInterfaceSetsNoTimer's
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if timers := timerCmds(m.Init()); len(timers) > 0 {
		t.Errorf("Init sets timers: %v", timers)
	}
	for _, msg := range []tea.Msg{
		tea.WindowSizeMsg{Width: 100, Height: 30},
		tea.KeyPressMsg{Code: 'a', Text: "a"},
		tea.KeyPressMsg{Code: tea.KeyEscape},
		tea.KeyPressMsg{Code: 'h', Text: "h"},
		tea.KeyPressMsg{Code: 'd', Text: "d"},
		tea.KeyPressMsg{Code: 'd', Text: "d"},
		tea.KeyPressMsg{Code: 'u', Text: "u"},
		tea.KeyPressMsg{Code: 'i', Text: "i"},
	} {
		_, cmd := m.Update(msg)
		if timers := timerCmds(cmd); len(timers) > 0 {
			t.Errorf("after %v the interface sets timers: %v", msg, timers)
		}
	}
	if m.vim.mode != vimInsertMode || m.input.Value() != "a" {
		t.Errorf("mode %v, input %q after a Esc h dd u i", m.vim.mode, m.input.Value())
	}
}
