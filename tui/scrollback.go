package tui

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// scrollbackLines caps the conversation printed when the interface quits;
// a longer one keeps its latest lines.
const scrollbackLines = 2000

// farewell is what stays in the terminal's scrollback after the interface
// quits: the conversation as the pane showed it (its latest
// scrollbackLines lines), the prompts still queued, and the command that
// resumes the session when it is saved. A question still waiting shows as
// not answered. It is "" when the pane is empty and nothing was said.
func (m *Model) farewell() string {
	width := m.width
	if width <= 0 {
		width = 80
	}
	// The interface is gone: a question that waited was never answered
	// (quitting denied it), and its menu must not stay on screen as if
	// it still asked.
	if p := m.approving; p != nil {
		if b := m.blocks[p.req.call.ID]; b != nil {
			b.finish("denied: agent quit while it asked", true, 0, map[string]any{tools.MetaDenied: true})
		}
	}
	var lines []string
	for i := range m.chat.len() {
		s := m.chat.at(i).Render(width)
		if s == "" {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, strings.Split(s, "\n")...)
	}
	if len(lines) > scrollbackLines {
		lines = append([]string{m.st.Dim.Render(fmt.Sprintf("  … %d earlier lines (agent sessions show %s prints them all)", len(lines)-scrollbackLines, m.session.ID))},
			lines[len(lines)-scrollbackLines:]...)
	}
	for _, q := range m.queue.items {
		first, _, _ := strings.Cut(q, "\n")
		lines = append(lines, cutTo(m.st.Dim.Render("  not sent (was queued): ")+first, width))
	}
	saved := m.cfg.Sessions != nil && m.session != nil && m.session.Conv.Len() > 0
	if saved {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, m.st.Dim.Render("Resume this session with: ")+"agent -r "+m.session.ID)
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
