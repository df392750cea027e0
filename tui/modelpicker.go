package tui

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// modelsTimeout bounds the request that lists the server's models.
const modelsTimeout = 15 * time.Second

// modelsListedMsg carries the server's models for the model picker.
type modelsListedMsg struct {
	ids []string
	err error
}

// modelPicker lists the server's models: typing filters them, ↑/↓ move,
// Enter switches the session to the chosen one, Esc closes. It replaces
// the conversation pane while it is open.
type modelPicker struct {
	st      *styles
	current string   // the model in use, marked
	items   []string // nil while loading
	filter  string
	cursor  int // index into shown()
	err     string
}

// shown are the models whose ids contain the filter (case-insensitive).
func (p *modelPicker) shown() []string {
	if p.filter == "" {
		return p.items
	}
	var out []string
	f := strings.ToLower(p.filter)
	for _, id := range p.items {
		if strings.Contains(strings.ToLower(id), f) {
			out = append(out, id)
		}
	}
	return out
}

func (p *modelPicker) move(delta int) {
	if n := len(p.shown()); n > 0 {
		p.cursor = min(max(p.cursor+delta, 0), n-1)
	}
}

func (p *modelPicker) selected() (string, bool) {
	s := p.shown()
	if len(s) == 0 {
		return "", false
	}
	return s[min(p.cursor, len(s)-1)], true
}

// View renders the picker in width x height, the cursor's line kept in
// view.
func (p *modelPicker) View(width, height int) string {
	head := p.st.ToolName.Render("Switch the model") + p.st.Dim.Render("  type to filter · ↑/↓ choose · enter switch · esc close")
	lines := []string{head}
	if p.filter != "" {
		lines = append(lines, p.st.Dim.Render("filter: ")+p.filter)
	}
	shown := p.shown()
	switch {
	case p.err != "":
		lines = append(lines, p.st.Error.Render(p.err))
	case p.items == nil:
		lines = append(lines, p.st.Dim.Render("Asking the server for its models…"))
	case len(shown) == 0:
		lines = append(lines, p.st.Dim.Render("No model matches; /model NAME switches to any name."))
	}
	room := max(height-len(lines), 1)
	first := max(0, p.cursor-room+1)
	for i := first; i < len(shown) && i < first+room; i++ {
		line := shown[i]
		if line == p.current {
			line += p.st.Dim.Render("  (in use)")
		}
		if i == p.cursor {
			line = p.st.ToolSelected.Render("▌ ") + line
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

// openModelPicker opens the model picker and asks the server for its
// models.
func (m *Model) openModelPicker() tea.Cmd {
	m.modelPick = &modelPicker{st: m.st, current: m.cfg.Model}
	list := m.cfg.Models
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), modelsTimeout)
		defer cancel()
		ids, err := list(ctx)
		return modelsListedMsg{ids, err}
	}
}

// modelsListed fills the open picker, the model in use first selected.
func (m *Model) modelsListed(msg modelsListedMsg) {
	p := m.modelPick
	if p == nil {
		return
	}
	if msg.err != nil {
		p.err = fmt.Sprintf("Listing the models: %v. /model NAME switches to any name.", msg.err)
		p.items = []string{}
		return
	}
	p.items = msg.ids
	if p.items == nil {
		p.items = []string{}
	}
	for i, id := range p.items {
		if id == p.current {
			p.cursor = i
		}
	}
}

// modelPickerKey handles keys while the model picker is open.
func (m *Model) modelPickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.modelPick
	switch msg.String() {
	case "up", "ctrl+p":
		p.move(-1)
	case "down", "ctrl+n":
		p.move(+1)
	case "enter":
		id, ok := p.selected()
		if !ok {
			return nil
		}
		m.modelPick = nil
		return m.switchModel(id)
	case "esc", "ctrl+c":
		m.modelPick = nil
	case "backspace":
		if p.filter != "" {
			_, size := utf8.DecodeLastRuneInString(p.filter)
			p.filter = p.filter[:len(p.filter)-size]
			p.cursor = 0
		}
	default:
		if msg.Text != "" {
			p.filter += msg.Text
			p.cursor = 0
		}
	}
	return nil
}

// switchModel builds the loop for model (in a command: building reads the
// project's AGENTS.md) and switches the session to it.
func (m *Model) switchModel(model string) tea.Cmd {
	if m.running {
		m.chat.append(newNoteItem(m.st, "Cancel the running turn (Esc) before switching models."))
		return nil
	}
	newLoop := m.session.NewLoop
	return func() tea.Msg {
		l, err := newLoop(model)
		return modelSwitchedMsg{model: model, loop: l, err: err}
	}
}
