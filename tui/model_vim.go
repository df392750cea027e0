package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/prefs"
)

// The input's vim keys (/vim, the vim setting): the model's side of the
// engine in vim.go. In insert mode the input edits as without them but
// for Esc, which goes to normal mode (and cancels no turn: Ctrl+C does).
// In normal mode the interface's keys keep their meaning (vimInterfaceKey)
// and every other key is the engine's.

// vimSavedMsg reports writing /vim's choice to the prefs file.
type vimSavedMsg struct{ err error }

// vimSetting is whether vim keys start on: the config file's vim when it
// says, else what /vim left in prefs, else off. A prefs file that cannot
// be read counts as unset; its error is returned (the note that says so
// is initTheme's, which reads the file too).
func vimSetting(cfg Config) (on bool, err error) {
	if cfg.Vim != nil {
		return *cfg.Vim, nil
	}
	if cfg.Prefs == nil {
		return false, nil
	}
	p, err := cfg.Prefs.Load()
	if err != nil || p.Vim == nil {
		return false, err
	}
	return *p.Vim, nil
}

// setVim switches vim keys on (in insert mode) or off.
func (m *Model) setVim(on bool) {
	if !on {
		m.vim = nil
	} else if m.vim == nil {
		m.vim = newVim(m.inputText())
	}
	m.keys.vim = on
	m.syncVimStatus()
}

// syncVimStatus shows the mode and the keys of a command being typed in
// the status line.
func (m *Model) syncVimStatus() {
	switch {
	case m.vim == nil:
		m.bar.vim = ""
	case m.vim.mode == vimInsertMode:
		m.bar.vim = "-- INSERT --"
	default:
		m.bar.vim = strings.TrimSpace("-- NORMAL -- " + m.vim.pending())
	}
}

// inputText is the input's text and cursor as the engine reads them.
func (m *Model) inputText() vimText {
	return newVimText(m.input.Value(), m.input.Line(), m.input.Column())
}

// setInputText puts t in the input: its text, and the cursor at its row
// and column (the textarea moves down by screen rows, so a wrapped row
// takes several steps).
func (m *Model) setInputText(t vimText) {
	m.input.SetValue(t.String())
	row, col := t.rowCol()
	m.input.MoveToBegin()
	for steps := 0; m.input.Line() < row && steps <= len(t.text)+row; steps++ {
		m.input.CursorDown()
	}
	m.input.SetCursorColumn(col)
}

// vimKey handles msg when vim keys are on and it is theirs, and reports
// whether it was: Esc in insert mode, and in normal mode every key but the
// interface's own.
func (m *Model) vimKey(msg tea.KeyPressMsg) bool {
	v := m.vim
	if v == nil {
		return false
	}
	defer m.syncVimStatus()
	if v.mode == vimInsertMode {
		if !key.Matches(msg, m.keys.Cancel) {
			return false
		}
		m.setInputText(v.escape(m.inputText()))
		return true
	}
	if key.Matches(msg, m.keys.Cancel) && v.pending() != "" {
		v.escape(vimText{}) // drops the command being typed
		return true
	}
	if m.vimInterfaceKey(msg) {
		v.keys = nil // Enter, Tab, ... end a half-typed command
		return false
	}
	before := m.inputText()
	after := v.key(msg.String(), before)
	if !after.equal(before) || after.pos != before.pos {
		m.setInputText(after)
	}
	return true
}

// vimInterfaceKey reports whether msg keeps the interface's meaning in
// normal mode: Ctrl+C, Esc (cancel, Esc Esc), Enter (send), Tab,
// Ctrl+B, Ctrl+X, Ctrl+V, ? on an empty input, and ↑/↓ on the input's
// first/last line (earlier and later prompts). The pane's keys, Shift+Tab
// and a question's menu never reach here.
func (m *Model) vimInterfaceKey(msg tea.KeyPressMsg) bool {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit, k.Cancel, k.Send, k.Complete, k.Background, k.DropQueued):
		return true
	case msg.String() == "alt+esc" || msg.String() == "ctrl+v":
		return true
	case key.Matches(msg, k.Help) && m.input.Value() == "" && m.vim.pending() == "":
		return true
	case key.Matches(msg, k.HistoryPrev) && m.input.Line() == 0 && m.vim.pending() == "":
		return true
	case key.Matches(msg, k.HistoryNext) && m.input.Line() == m.input.LineCount()-1 && m.vim.pending() == "":
		return true
	}
	return false
}

// vimSent starts a fresh insert after the input was sent: the next prompt
// is typed at once, and u does not bring back the sent one.
func (m *Model) vimSent() {
	if m.vim == nil {
		return
	}
	m.vim.forget()
	m.vim.startInsert(m.inputText())
	m.syncVimStatus()
}

// vimCommand is /vim [on|off]: switches vim keys (without an argument, the
// other way round) and remembers the choice in prefs unless the config
// file sets vim, which then decides again at the next start.
func (m *Model) vimCommand(arg string) tea.Cmd {
	on := m.vim == nil
	switch strings.ToLower(arg) {
	case "":
	case "on":
		on = true
	case "off":
		on = false
	default:
		return m.showNote("Usage: /vim [on|off] (without an argument: switch).")
	}
	m.setVim(on)
	what := "Vim keys off."
	if on {
		what = "Vim keys on: Esc goes to normal mode (h j k l w b e 0 $ gg G, i a I A o O, x dd dw cw cc yy p u, counts, .); " +
			"Enter sends in either mode; Ctrl+C cancels a running turn."
	}
	var save tea.Cmd
	switch {
	case m.cfg.Vim != nil:
		what += " The config file sets vim = " + map[bool]string{true: "true", false: "false"}[*m.cfg.Vim] + ": this lasts for this run."
	case m.cfg.Prefs != nil:
		file := m.cfg.Prefs
		save = func() tea.Msg {
			return vimSavedMsg{file.Update(func(p *prefs.Prefs) { p.Vim = &on })}
		}
	}
	m.showNote(what)
	return save
}

// vimSaved notes a failure to remember /vim's choice.
func (m *Model) vimSaved(msg vimSavedMsg) {
	if msg.err != nil {
		m.showNote("Vim keys: the choice is not remembered: " + msg.err.Error())
	}
}
