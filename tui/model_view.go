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
	if !m.inputView.ok {
		m.inputView.value = m.input.Value()
		m.inputView.lines = fitWidth(strings.Split(m.input.View(), "\n"), m.width)
		m.inputView.ok = true
	}
	value := m.inputView.value
	hints := completionHints(m.st, completions(value), m.width)
	if len(hints) == 0 && mentionWord(value) == m.mentionQuery {
		hints = m.mentionHintLines()
	}
	help := m.help.View(m.keys)
	if !m.quitArmed.IsZero() {
		help = m.st.Approval.Render("Press Ctrl+C again to quit.")
	}
	helpLines := fitWidth(strings.Split(help, "\n"), m.width)
	status := []string{m.bar.Render(m.width)}
	var queued []string
	if t := m.todos.Render(m.width); t != "" {
		queued = strings.Split(t, "\n")
	}
	if q := m.queue.Render(m.width); q != "" {
		queued = append(queued, strings.Split(q, "\n")...)
	}
	input := m.inputView.lines

	room := m.height - len(input) - 1 // one row at least for the pane
	if len(queued)+len(hints)+len(status)+len(helpLines) > room {
		helpLines = nil
	}
	if n := len(hints); n > 0 && len(queued)+n+len(status) > room {
		keep := max(room-len(status)-len(queued), 0)
		hints = hints[:keep]
		if keep > 0 {
			hints[keep-1] = cutTo(m.st.Dim.Render(fmt.Sprintf("  … %d more", n-keep+1)), m.width)
		}
	}
	if len(queued)+len(hints)+len(status) > room {
		queued = nil
	}
	if len(hints)+len(status) > room {
		status = nil
	}
	var bottom []string
	bottom = append(bottom, queued...)
	bottom = append(bottom, hints...)
	bottom = append(bottom, input...)
	bottom = append(bottom, status...)
	bottom = append(bottom, helpLines...)
	lines := bottom
	if pane := m.height - len(bottom); pane > 0 {
		view := m.chat.View(m.width, pane)
		if m.picker != nil {
			view = m.picker.View(m.width, pane)
		}
		if m.modelPick != nil {
			view = m.modelPick.View(m.width, pane)
		}
		lines = append(strings.Split(view, "\n"), bottom...)
	}
	if len(lines) > m.height { // a terminal smaller than the input itself
		lines = lines[len(lines)-m.height:]
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "agent"
	return v
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
