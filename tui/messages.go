package tui

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/agent-dev/agent/tui/markdown"
)

// reasoningLines is how many of its last lines folded reasoning shows.
const reasoningLines = 3

// userItem is a prompt the person sent.
type userItem struct {
	st    *styles
	text  string
	width int
	cache string
}

func newUserItem(st *styles, text string) *userItem { return &userItem{st: st, text: text} }

// restyle drops the cached rendering (the styles changed).
func (u *userItem) restyle() { u.cache = "" }

func (u *userItem) Render(width int) string {
	if u.cache != "" && u.width == width {
		return u.cache
	}
	body := lipgloss.NewStyle().Width(max(width-2, 1)).Render(u.text)
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		mark := "  "
		if i == 0 {
			mark = u.st.UserMark.Render("❯ ")
		}
		lines[i] = mark + u.st.User.Render(strings.TrimRight(l, " "))
	}
	u.cache, u.width = strings.Join(lines, "\n"), width
	return u.cache
}

// assistantItem is one assistant message: its reasoning (dimmed, folded to
// its last lines) and its text, rendered as markdown while it streams.
type assistantItem struct {
	st        *styles
	reasoning strings.Builder
	md        *markdown.Stream
	finished  bool

	// The rendering of a finished message, per width.
	cache      string
	cacheWidth int
}

func newAssistantItem(st *styles) *assistantItem {
	return &assistantItem{st: st, md: markdown.NewStream(st.Markdown)}
}

func (a *assistantItem) appendText(s string)      { a.md.Append(s); a.cache = "" }
func (a *assistantItem) appendReasoning(s string) { a.reasoning.WriteString(s); a.cache = "" }

// restyle renders the message again with the current styles (after the
// terminal reported its background).
func (a *assistantItem) restyle() {
	text, done := a.md.Text(), a.md.Done()
	a.md = markdown.NewStream(a.st.Markdown)
	a.md.Append(text)
	if done {
		a.md.Finish()
	}
	a.cache = ""
}

// finish marks the message complete: its whole text is final.
func (a *assistantItem) finish() {
	if !a.finished {
		a.finished = true
		a.md.Finish()
	}
}

func (a *assistantItem) Render(width int) string {
	if a.finished && a.cache != "" && a.cacheWidth == width {
		return a.cache
	}
	var parts []string
	if r := strings.TrimSpace(lastLines(a.reasoning.String(), reasoningLines+1)); r != "" {
		wrapped := strings.Split(lipgloss.NewStyle().Width(max(width-2, 1)).Render(r), "\n")
		if len(wrapped) > reasoningLines {
			wrapped = append([]string{"…"}, wrapped[len(wrapped)-reasoningLines:]...)
		}
		for i, l := range wrapped {
			wrapped[i] = a.st.Reasoning.Render("│ " + strings.TrimRight(l, " "))
		}
		parts = append(parts, strings.Join(wrapped, "\n"))
	}
	if text := a.md.Render(width); strings.TrimSpace(text) != "" {
		parts = append(parts, strings.Trim(text, "\n"))
	}
	out := strings.Join(parts, "\n")
	if a.finished {
		a.cache, a.cacheWidth = out, width
	}
	return out
}

// lastLines returns the last n lines of s (all of s when it has fewer), so
// folded reasoning wraps only what it shows, however long the reasoning.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	end := len(s)
	for i := 0; i < n; i++ {
		j := strings.LastIndexByte(s[:end], '\n')
		if j < 0 {
			return s
		}
		end = j
	}
	return s[end+1:]
}
