package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/mention"
)

// mentionHintsMsg carries the completions of an "@" word, computed in a
// command (completion walks the working directory).
type mentionHintsMsg struct {
	query string // the word, with its "@"
	paths []string
}

// mentionWord returns the last word of the input when it is an "@"
// mention being typed (it starts the input or follows white space), else
// "".
func mentionWord(input string) string {
	if input == "" || strings.ContainsAny(input[len(input)-1:], " \t\n") {
		return ""
	}
	w := input[strings.LastIndexAny(input, " \t\n")+1:]
	if !strings.HasPrefix(w, "@") {
		return ""
	}
	return w
}

// maxMentionHints caps the @path completion lines shown above the input.
const maxMentionHints = 4

// refreshMentions asks for the completions of the "@" word at the end of
// the input when it changed, and forgets the shown ones when there is none.
func (m *Model) refreshMentions() tea.Cmd {
	w := mentionWord(m.input.Value())
	if m.cfg.Mentions == nil || w == m.mentionQuery {
		return nil
	}
	m.mentionQuery, m.mentionHints = w, nil
	if w == "" {
		return nil
	}
	ms := m.cfg.Mentions
	return func() tea.Msg {
		return mentionHintsMsg{query: w, paths: ms.Complete(context.Background(), w[1:], maxMentionHints)}
	}
}

// completeMention replaces the "@" word at the end of the input with the
// best completion; a file gets a space after it, a directory none, so that
// typing goes on inside it. It reports whether there was one.
func (m *Model) completeMention() bool {
	w := mentionWord(m.input.Value())
	if w == "" || w != m.mentionQuery || len(m.mentionHints) == 0 {
		return false
	}
	best := m.mentionHints[0]
	v := strings.TrimSuffix(m.input.Value(), w) + "@" + best
	if !strings.HasSuffix(best, "/") {
		v += " "
	}
	m.input.SetValue(v)
	m.input.CursorEnd()
	return true
}

// mentionHintLines are the completion lines of the "@" word, one per path.
func (m *Model) mentionHintLines() []string {
	var out []string
	for i, p := range m.mentionHints {
		hint := ""
		if i == 0 {
			hint = "   tab completes"
		}
		out = append(out, cutTo(m.st.Dim.Render("  @"+p+hint), m.width))
	}
	return out
}

// attachedNote says what a prompt's mentions attached.
func attachedNote(atts []mention.Attachment) string {
	var parts, skipped []string
	for _, a := range atts {
		if a.Skipped != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", a.Path, a.Skipped))
			continue
		}
		s := fmt.Sprintf("%s (%s)", a.Path, byteSize(a.Bytes))
		if a.Cut {
			s += ", cut"
		}
		parts = append(parts, s)
	}
	var out []string
	if len(parts) > 0 {
		out = append(out, "Attached "+strings.Join(parts, ", ")+".")
	}
	if len(skipped) > 0 {
		out = append(out, "Not attached: "+strings.Join(skipped, "; ")+".")
	}
	return strings.Join(out, " ")
}

// byteSize formats a byte count for people.
func byteSize(n int) string {
	if n >= 1<<10 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
