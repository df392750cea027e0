package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// StatusState is what the interface knows of the session for a status
// line of the person's own (Config.StatusLine).
type StatusState struct {
	SessionID string
	Model     string
	Dir       string
	// CostUSD is the session's cost in US dollars; CostKnown is false
	// when a model had no price.
	CostUSD   float64
	CostKnown bool
	// InputTokens and OutputTokens are the session's tokens; Context is
	// the conversation's size as of the last request, in tokens.
	InputTokens, OutputTokens, Context int
}

// StatusLineFunc runs the person's status line command (Claude Code's
// statusLine) with the session's state and returns the line to show,
// ANSI colours included; it returns when ctx is cancelled.
type StatusLineFunc func(ctx context.Context, st StatusState) (string, error)

// statusLineMsg carries a status line command's output (ok false: it
// failed, and the last line stays).
type statusLineMsg struct {
	line string
	ok   bool
}

// refreshStatusLine runs Config.StatusLine in a command, unless one runs
// already (then one more runs after it, so the last state is shown).
func (m *Model) refreshStatusLine() tea.Cmd {
	if m.cfg.StatusLine == nil {
		return nil
	}
	if m.statusLineRunning {
		m.statusLineAgain = true
		return nil
	}
	m.statusLineRunning = true
	st := StatusState{Model: m.bar.model, Dir: m.cfg.Dir, InputTokens: m.bar.in, OutputTokens: m.bar.out, Context: m.bar.context,
		CostUSD: m.cost.session, CostKnown: m.cost.known}
	if m.session != nil {
		st.SessionID = m.session.ID
	}
	run := m.cfg.StatusLine
	return func() tea.Msg {
		line, err := run(context.Background(), st)
		return statusLineMsg{line: line, ok: err == nil}
	}
}

// onStatusLine shows a status line command's output.
func (m *Model) onStatusLine(msg statusLineMsg) tea.Cmd {
	m.statusLineRunning = false
	if msg.ok {
		m.statusLine = sanitizeStatusLine(msg.line)
	}
	if m.statusLineAgain {
		m.statusLineAgain = false
		return m.refreshStatusLine()
	}
	return nil
}

// sanitizeStatusLine keeps the first line of out with its SGR colour
// sequences; every other control sequence or character is dropped, so a
// status line cannot move the cursor, set the title or clear the screen.
func sanitizeStatusLine(out string) string {
	line, _, _ := strings.Cut(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var b strings.Builder
	p := ansi.NewParser()
	state := byte(0)
	for len(line) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(line, state, p)
		switch {
		case width > 0:
			b.WriteString(seq)
		case sgr(seq):
			b.WriteString(seq)
		}
		state, line = newState, line[n:]
	}
	return b.String() + "\x1b[m"
}

// sgr reports whether seq is a colour sequence (SGR): CSI, parameters of
// digits, ";" and ":" alone, then m. "\x1b[>4;2m" also ends in m, but
// sets how the terminal sends keys.
func sgr(seq string) bool {
	if !strings.HasPrefix(seq, "\x1b[") || !strings.HasSuffix(seq, "m") || len(seq) < 3 {
		return false
	}
	return strings.Trim(seq[2:len(seq)-1], "0123456789;:") == ""
}

// statusLineRow is the person's status line cut to width, "" for none.
func (m *Model) statusLineRow() string {
	if m.statusLine == "" || m.statusLine == "\x1b[m" {
		return ""
	}
	return ansi.Truncate(strings.Repeat(" ", m.cfg.StatusLinePadding)+m.statusLine, m.width, "…")
}
