package tui

import "charm.land/bubbles/v2/key"

// keyMap holds every key binding; help shows the ones that apply now.
type keyMap struct {
	Send, Newline, HistoryPrev, HistoryNext key.Binding
	EditQueued, DropQueued                  key.Binding
	PageUp, PageDown, Top, Bottom           key.Binding
	Cancel, Quit, Help, Complete            key.Binding
	SelectPrev, SelectNext, Expand          key.Binding
	Mode, Todo, Background                  key.Binding
	Rewind                                  key.Binding // help only: Esc Esc is promptKey's
	// The vim keys' help (the engine reads the keys itself, vim.go).
	VimSwitch, VimModes, VimMove, VimLines, VimEdit, VimYank, VimCount, VimCancel key.Binding
	running                                                                       bool
	shells                                                                        bool // Ctrl+B sends a running command to the background
	vim                                                                           bool // vim keys are on: help shows them
}

func newKeyMap() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Send:        b("enter", "send", "enter"),
		Newline:     b("shift+enter/ctrl+j", "newline", "shift+enter", "ctrl+j"),
		HistoryPrev: b("↑", "earlier prompt", "up"),
		HistoryNext: b("↓", "later prompt", "down"),
		EditQueued:  b("↑", "edit queued (empty input)", "up"),
		DropQueued:  b("ctrl+x", "drop queued", "ctrl+x"),
		PageUp:      b("pgup", "scroll up", "pgup"),
		PageDown:    b("pgdn", "scroll down", "pgdown"),
		Top:         b("home", "top", "home"),
		Bottom:      b("end", "bottom", "end"),
		Cancel:      b("esc", "cancel turn", "esc"),
		Quit:        b("ctrl+c", "quit", "ctrl+c"),
		Help:        b("?", "all keys", "?"),
		Complete:    b("tab", "complete /command or @path", "tab"),
		SelectPrev:  b("ctrl+↑", "previous tool", "ctrl+up"),
		SelectNext:  b("ctrl+↓", "next tool", "ctrl+down"),
		Expand:      b("ctrl+o", "expand/fold tool", "ctrl+o"),
		Mode:        b("shift+tab", "ask/auto/plan", "shift+tab"),
		Todo:        b("ctrl+t", "fold/show todo list", "ctrl+t"),
		Background:  b("ctrl+b", "run command in background", "ctrl+b"),
		Rewind:      b("esc esc", "rewind (empty input)", "esc"),
		VimSwitch:   b("/vim", "vim keys on/off", "/"),
		VimModes:    b("esc, i a I A o O", "vim: normal mode, insert mode", "esc"),
		VimMove:     b("h j k l w b e", "move (W B E: words with .-/)", "h"),
		VimLines:    b("0 ^ $ gg G", "line start, end; first, last line", "0"),
		VimEdit:     b("x dd dw cw cc D C", "delete, change (d/c + motion)", "x"),
		VimYank:     b("yy p P u ctrl+r .", "yank, put, undo, redo, repeat", "y"),
		VimCount:    b("3w 2dd d3w", "counts", "3"),
		VimCancel:   b("ctrl+c", "cancel turn (esc only in normal mode)", "ctrl+c"),
	}
}

// ShortHelp is the one-line help for the current state. A waiting
// question shows its own keys in its block.
func (k keyMap) ShortHelp() []key.Binding {
	switch {
	case k.running && k.shells:
		return []key.Binding{k.Cancel, k.Background, k.PageUp, k.Expand, k.Help}
	case k.running:
		return []key.Binding{k.Cancel, k.PageUp, k.Expand, k.Help}
	}
	return []key.Binding{k.Send, k.Newline, k.Complete, k.Expand, k.Quit, k.Help}
}

// FullHelp is every binding, in columns; the vim keys' column when they
// are on.
func (k keyMap) FullHelp() [][]key.Binding {
	turn := []key.Binding{k.Cancel, k.Rewind, k.EditQueued, k.DropQueued, k.Quit, k.Help, k.Mode, k.Todo}
	if k.shells {
		turn = append(turn, k.Background)
	}
	groups := [][]key.Binding{
		{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.Complete, k.VimSwitch},
		{k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.SelectPrev, k.SelectNext, k.Expand},
		turn,
	}
	if k.vim {
		groups = append(groups, []key.Binding{
			k.VimModes, k.VimMove, k.VimLines, k.VimEdit, k.VimYank, k.VimCount, k.VimCancel,
		})
	}
	return groups
}
