package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// inputHeight is the input's height in rows for a terminal of height rows:
// three, or one in a short terminal.
func inputHeight(height int) int {
	if height < 12 {
		return 1
	}
	return 3
}

// View lays out the pane, the queued prompts, the completion hints (of a
// /command or an @path), the input, the status line and the help line in
// exactly the terminal's height: when rows run short, the help line goes
// first, then the hints are cut (the last one says how many more match),
// then the queued prompts, then the status line; the pane takes what is
// left.
func (m *Model) View() tea.View {
	if m.width == 0 || m.height == 0 {
		return tea.NewView("")
	}
	b := m.bottomRows()
	m.fitBottom(&b, m.height-len(b.input)-1) // one row at least for the pane
	bottom := b.lines()
	lines := bottom
	if pane := m.height - len(bottom); pane > 0 {
		lines = append(strings.Split(m.paneView(pane), "\n"), bottom...)
	}
	inputTop := len(lines) - len(bottom) + len(b.queued) + len(b.hints)
	if cut := len(lines) - m.height; cut > 0 { // a terminal smaller than the input itself
		lines = lines[cut:]
		inputTop -= cut
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.Cursor = m.cursor(inputTop)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "agent"
	v.ReportFocus = m.notifier.reportsFocus()
	return v
}

// cursor is the terminal's cursor where the person types, in the input
// whose first row is row inputTop of the screen; nil (hidden) while keys
// go elsewhere: a picker or dialog is open, or a waiting question's menu
// takes them (see approvalTakesKeys).
func (m *Model) cursor(inputTop int) *tea.Cursor {
	if !m.inputTakesKeys() {
		return nil
	}
	c := m.input.Cursor()
	if c == nil {
		return nil
	}
	c.Y += inputTop
	if c.Y < 0 || c.Y >= m.height {
		return nil
	}
	c.X = min(c.X, m.width-1)
	if m.vim != nil && m.vim.mode == vimInsertMode {
		c.Shape = tea.CursorBar // vim's insert mode; normal mode keeps the block
	}
	return c
}

// inputTakesKeys reports whether typed keys go to the input: no picker or
// dialog is open and no waiting question's menu takes them.
func (m *Model) inputTakesKeys() bool {
	return m.picker == nil && m.modelPick == nil && m.shellsView == nil && m.rewind == nil && !m.approvalTakesKeys()
}

// bottom is the rows View draws under the pane, each section's rows cut to
// the terminal's width.
type bottom struct {
	queued, hints, input, status, help []string
}

// lines is the rows of b from top to bottom.
func (b bottom) lines() []string {
	var lines []string
	lines = append(lines, b.queued...)
	lines = append(lines, b.hints...)
	lines = append(lines, b.input...)
	lines = append(lines, b.status...)
	return append(lines, b.help...)
}

// bottomRows is every row under the pane before any is dropped. The input's
// rows come from the cache that keepsInput's messages keep.
func (m *Model) bottomRows() bottom {
	if !m.inputView.ok {
		m.inputView.value = m.input.Value()
		m.inputView.lines = fitWidth(strings.Split(m.input.View(), "\n"), m.width)
		m.inputView.ok = true
	}
	value := m.inputView.value
	hints := completionHints(m.st, completions(m.commands(), value), m.width)
	if len(hints) == 0 && mentionWord(value) == m.mentionQuery {
		hints = m.mentionHintLines()
	}
	help := m.helpLines()
	switch {
	case !m.quitArmed.IsZero():
		help = []string{cutTo(m.st.Approval.Render("Press Ctrl+C again to quit."), m.width)}
	case !m.escArmed.IsZero():
		help = []string{cutTo(m.st.Approval.Render("Press Esc again to rewind to an earlier prompt."), m.width)}
	}
	b := bottom{
		hints:  hints,
		input:  m.inputView.lines,
		status: []string{m.bar.Render(m.width)},
		help:   help,
	}
	if row := m.statusLineRow(); row != "" {
		b.status = append(b.status, row)
	}
	if t := m.todos.Render(m.width); t != "" {
		b.queued = strings.Split(t, "\n")
	}
	if q := m.queue.Render(m.width); q != "" {
		b.queued = append(b.queued, strings.Split(q, "\n")...)
	}
	return b
}

// fitBottom drops rows of b until all but its input fit in room rows: the
// help goes first (?'s panel leaves a line saying that /help lists the
// keys), then the hints are cut (the last one says how many
// more match), then the queued prompts, then the status line.
func (m *Model) fitBottom(b *bottom, room int) {
	if len(b.queued)+len(b.hints)+len(b.status)+len(b.help) > room {
		panel := len(b.help) > 1
		b.help = nil
		if panel && len(b.queued)+len(b.hints)+len(b.status) < room {
			// ?'s panel: say where every key is instead.
			b.help = []string{cutTo(m.st.Dim.Render("Too few rows for every key: /help lists them in the conversation."), m.width)}
		}
	}
	if n := len(b.hints); n > 0 && len(b.queued)+n+len(b.status) > room {
		keep := max(room-len(b.status)-len(b.queued), 0)
		b.hints = b.hints[:keep]
		if keep > 0 {
			b.hints[keep-1] = cutTo(m.st.Dim.Render(fmt.Sprintf("  … %d more", n-keep+1)), m.width)
		}
	}
	if len(b.queued)+len(b.hints)+len(b.status) > room {
		b.queued = nil
	}
	if len(b.hints)+len(b.status) > room {
		b.status = nil
	}
}

// paneView is the pane, height rows: the model picker, else the session
// picker, else the /rewind dialog, else the /shells dialog, else the chat.
// The chat is drawn under a picker too, so that it keeps its place and its
// caches.
func (m *Model) paneView(height int) string {
	view := m.chat.View(m.width, height)
	if m.shellsView != nil {
		view = m.shellsView.View(m.width, height, m.shells.stopping)
	}
	if m.rewind != nil {
		view = m.rewind.View(m.width, height)
	}
	if m.picker != nil {
		view = m.picker.View(m.width, height)
	}
	if m.modelPick != nil {
		view = m.modelPick.View(m.width, height)
	}
	return view
}

// completionHints is one line per command that completes the input, in
// columns as wide as the longest name and argument.
func completionHints(st *styles, cmds []slashCommand, width int) []string {
	nameW, argW := 0, 0
	for _, c := range cmds {
		nameW, argW = max(nameW, len(c.name)), max(argW, len(c.args))
	}
	lines := make([]string, 0, len(cmds))
	for _, c := range cmds {
		lines = append(lines, cutTo(st.Dim.Render(fmt.Sprintf("  %-*s %-*s %s", nameW, c.name, argW, c.args, c.desc)), width))
	}
	return lines
}

// gitStatusLines caps the git status shown after a turn.
const gitStatusLines = 20
