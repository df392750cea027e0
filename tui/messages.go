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
// its last lines) and its text, rendered as markdown while it streams. It
// is a linesItem: while it streams, a frame renders the markdown's
// unfinished tail and the folded reasoning when it grew, and nothing else.
type assistantItem struct {
	st        *styles
	reasoning strings.Builder
	md        *markdown.Stream
	finished  bool

	// The folded reasoning's lines, for thoughtWidth and thoughtLen bytes
	// of reasoning.
	thought     []string
	thoughtOK   bool
	thoughtWide int
	thoughtLen  int

	// The last Lines result, valid while linesOK and for linesWidth.
	lines      []string
	linesOK    bool
	linesWidth int

	// The rendering of a finished message, per width.
	cache      string
	cacheWidth int
}

func newAssistantItem(st *styles) *assistantItem {
	return &assistantItem{st: st, md: markdown.NewStream(st.Markdown)}
}

func (a *assistantItem) appendText(s string) { a.md.Append(s); a.changed() }
func (a *assistantItem) appendReasoning(s string) {
	a.reasoning.WriteString(s)
	a.changed()
}

// changed drops the renderings made before the message changed.
func (a *assistantItem) changed() { a.cache, a.linesOK = "", false }

// restyle renders the message again with the current styles (after the
// terminal reported its background).
func (a *assistantItem) restyle() {
	text, done := a.md.Text(), a.md.Done()
	a.md = markdown.NewStream(a.st.Markdown)
	a.md.Append(text)
	if done {
		a.md.Finish()
	}
	a.thoughtOK = false
	a.changed()
}

// finish marks the message complete: its whole text is final.
func (a *assistantItem) finish() {
	if !a.finished {
		a.finished = true
		a.md.Finish()
		a.changed()
	}
}

func (a *assistantItem) Render(width int) string {
	if a.cache == "" || a.cacheWidth != width {
		a.cache, a.cacheWidth = strings.Join(a.Lines(width), "\n"), width
	}
	return a.cache
}

// Lines returns the folded reasoning's lines followed by the markdown's.
// Without reasoning they are the markdown Stream's own slice; with it, the
// markdown's line headers are copied once per change (16 bytes a line).
func (a *assistantItem) Lines(width int) []string {
	if a.linesOK && a.linesWidth == width {
		return a.lines
	}
	thought := a.thoughtLines(width)
	text := a.md.Lines(width)
	if len(thought) == 0 {
		a.lines = text
	} else {
		// a.lines may be the Stream's own slice: never append to it.
		buf := make([]string, 0, len(thought)+len(text))
		a.lines = append(append(buf, thought...), text...)
	}
	a.linesOK, a.linesWidth = true, width
	return a.lines
}

// thoughtLines returns the reasoning folded to its last reasoningLines
// lines (with "…" above when some were folded), wrapped at width.
func (a *assistantItem) thoughtLines(width int) []string {
	if a.thoughtOK && a.thoughtWide == width && a.thoughtLen == a.reasoning.Len() {
		return a.thought
	}
	a.thought, a.thoughtOK, a.thoughtWide, a.thoughtLen = nil, true, width, a.reasoning.Len()
	r := strings.TrimSpace(lastLines(a.reasoning.String(), reasoningLines+1))
	if r == "" {
		return nil
	}
	wrapped := strings.Split(lipgloss.NewStyle().Width(max(width-2, 1)).Render(r), "\n")
	if len(wrapped) > reasoningLines {
		wrapped = append([]string{"…"}, wrapped[len(wrapped)-reasoningLines:]...)
	}
	for i, l := range wrapped {
		wrapped[i] = a.st.Reasoning.Render("│ " + strings.TrimRight(l, " "))
	}
	a.thought = wrapped
	return a.thought
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
