package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// mentionHintsMsg carries the completions of an "@" word, computed in a
// command (completion walks the working directory).
type mentionHintsMsg struct {
	query string // the word, with its "@"
	paths []string
}

// mentionWord returns the last word of the input when it is an "@"
// mention being typed (it starts the input or follows white space), else
// "". A mention in double quotes that is still open (@"old plans/wal) is
// one word, spaces and all.
func mentionWord(input string) string {
	if i := strings.LastIndex(input, `@"`); i >= 0 && (i == 0 || strings.ContainsAny(input[i-1:i], " \t\n")) &&
		!strings.ContainsAny(input[i+2:], "\"\n") {
		return input[i:]
	}
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
		return mentionHintsMsg{query: w, paths: ms.Complete(context.Background(), strings.TrimPrefix(w[1:], `"`), maxMentionHints)}
	}
}

// completeMention replaces the "@" word at the end of the input with the
// best completion; a file gets a space after it, a directory none, so that
// typing goes on inside it. A path with spaces (or one typed in quotes) is
// written in double quotes, left open after a directory, so that the
// mention sent is the whole path (mention.Find). It reports whether there
// was one.
func (m *Model) completeMention() bool {
	w := mentionWord(m.input.Value())
	if w == "" || w != m.mentionQuery || len(m.mentionHints) == 0 {
		return false
	}
	best := m.mentionHints[0]
	dir := strings.HasSuffix(best, "/")
	v := strings.TrimSuffix(m.input.Value(), w)
	switch quoted := strings.HasPrefix(w, `@"`) || strings.ContainsAny(best, " \t"); {
	case quoted && dir:
		v += `@"` + best
	case quoted:
		v += `@"` + best + `" `
	case dir:
		v += "@" + best
	default:
		v += "@" + best + " "
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
