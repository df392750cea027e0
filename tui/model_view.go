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

// maxHints caps the completion lines shown above the input.
const maxHints = 4

// View lays out the pane, the queued prompts, the completion hints (of a
// /command or an @path), the input, the status line
// and the help line in exactly the terminal's height: when rows run short,
// the help line goes first, then the hints, then the status line; the pane
// takes what is left.
func (m *Model) View() tea.View {
	if m.width == 0 || m.height == 0 {
		return tea.NewView("")
	}
	var hints []string
	for i, h := range completions(m.input.Value()) {
		if i == maxHints {
			break
		}
		hints = append(hints, cutTo(m.st.Dim.Render(fmt.Sprintf("  %-8s %-6s %s", h.name, h.args, h.desc)), m.width))
	}
	if len(hints) == 0 && mentionWord(m.input.Value()) == m.mentionQuery {
		hints = m.mentionHintLines()
	}
	help := m.help.View(m.keys)
	if !m.quitArmed.IsZero() {
		help = m.st.Approval.Render("Press Ctrl+C again to quit.")
	}
	helpLines := fitWidth(strings.Split(help, "\n"), m.width)
	status := []string{m.bar.Render(m.width)}
	var queued []string
	if q := m.queue.Render(m.width); q != "" {
		queued = strings.Split(q, "\n")
	}
	input := fitWidth(strings.Split(m.input.View(), "\n"), m.width)

	room := m.height - len(input) - 1 // one row at least for the pane
	for _, drop := range []*[]string{&helpLines, &hints, &queued, &status} {
		if len(queued)+len(hints)+len(status)+len(helpLines) <= room {
			break
		}
		*drop = nil
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

// gitStatusLines caps the git status shown after a turn.
const gitStatusLines = 20
