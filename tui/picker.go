package tui

import (
	"fmt"
	"strings"
	"time"
)

// sessionPicker lists sessions to resume: ↑/↓ move, Enter opens, Esc
// closes. It replaces the conversation pane while it is open.
type sessionPicker struct {
	st     *styles
	items  []SessionInfo
	cursor int
	err    string
	now    time.Time // for "3h ago"; set when the list arrives
}

func (p *sessionPicker) move(delta int) {
	if len(p.items) > 0 {
		p.cursor = min(max(p.cursor+delta, 0), len(p.items)-1)
	}
}

func (p *sessionPicker) selected() (SessionInfo, bool) {
	if len(p.items) == 0 {
		return SessionInfo{}, false
	}
	return p.items[p.cursor], true
}

// View renders the picker in width x height, the cursor's line kept in
// view.
func (p *sessionPicker) View(width, height int) string {
	lines := []string{p.st.ToolName.Render("Resume a session") + p.st.Dim.Render("  ↑/↓ choose · enter open · esc close")}
	switch {
	case p.err != "":
		lines = append(lines, p.st.Error.Render(p.err))
	case p.items == nil:
		lines = append(lines, p.st.Dim.Render("Loading…"))
	case len(p.items) == 0:
		lines = append(lines, p.st.Dim.Render("No earlier sessions in this directory."))
	}
	room := max(height-len(lines), 1)
	first := max(0, p.cursor-room+1)
	for i := first; i < len(p.items) && i < first+room; i++ {
		it := p.items[i]
		title := it.Title
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("%s  %-8s  %4d msgs  %s", it.ID, ago(p.now, it.Updated), it.Messages, oneLine(title))
		if i == p.cursor {
			line = p.st.ToolSelected.Render("▌ " + line)
		} else {
			line = "  " + line
		}
		lines = append(lines, cutTo(line, width))
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(fitWidth(lines[:height], width), "\n")
}

// ago says how long before now t was, coarsely ("5m ago").
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
