package tui

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// todoPin is the session's todo list (todo_write's), pinned above the
// input while any item is unfinished; Ctrl+T folds it to one line.
type todoPin struct {
	st     *styles
	items  []tools.Todo
	folded bool
}

// set replaces the list.
func (p *todoPin) set(items []tools.Todo) { p.items = items }

// Render is the pinned list at width, "" when every item is done (or
// there is none).
func (p *todoPin) Render(width int) string {
	if !tools.UnfinishedTodos(p.items) {
		return ""
	}
	done, now := 0, ""
	for _, it := range p.items {
		switch it.Status {
		case tools.TodoCompleted:
			done++
		case tools.TodoInProgress:
			now = it.Content
		}
	}
	head := fmt.Sprintf("Todo %d/%d done", done, len(p.items))
	if p.folded {
		line := head
		if now != "" {
			line += " · now: " + now
		}
		return cutTo(p.st.Dim.Render(oneLine(line+" (ctrl+t shows)")), width)
	}
	lines := []string{cutTo(p.st.Dim.Render(head+" (ctrl+t folds)"), width)}
	for _, it := range p.items {
		text := oneLine(it.Content)
		switch it.Status {
		case tools.TodoCompleted:
			lines = append(lines, cutTo(p.st.Dim.Render("  ✓ "+text), width))
		case tools.TodoInProgress:
			lines = append(lines, cutTo(p.st.Key.Render("  ▸ "+text), width))
		default:
			lines = append(lines, cutTo("  ☐ "+text, width))
		}
	}
	return strings.Join(lines, "\n")
}
