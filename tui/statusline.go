package tui

import (
	"cmp"
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/agent-dev/agent/providers"
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
	// the conversation's size as of the last request, in tokens, and
	// Window the model's context window (0: unknown).
	InputTokens, OutputTokens, Context, Window int
	// Last is the last request's usage.
	Last providers.Usage
	// Duration is how long the interface has run; APIDuration how long
	// its turns ran.
	Duration, APIDuration time.Duration
	// LinesAdded and LinesRemoved count the lines the edits of the
	// session shown added and removed.
	LinesAdded, LinesRemoved int
}

// StatusLineFunc runs the person's status line command (Claude Code's
// statusLine) with the session's state and returns the line to show,
// ANSI colours included; it returns when ctx is cancelled, and an error
// when the command failed, timed out or printed nothing usable.
type StatusLineFunc func(ctx context.Context, st StatusState) (string, error)

// statusLineEvery is the least time between two runs of the status line
// command (Claude Code's 300 ms): events that come faster are shown by
// one run at the end of the interval.
const statusLineEvery = 300 * time.Millisecond

// statusLineState is the person's status line: the line shown, the
// command's runs (one at a time, at most one every statusLineEvery) and
// what the state given to it counts beyond the status bar's.
type statusLineState struct {
	line    string
	running bool      // a run is under way
	again   bool      // the state changed during the run: one more after it
	waiting bool      // a run is due at the end of the interval
	last    time.Time // when the last run started
	warned  bool      // the one warning of a failing command was shown

	began          time.Time       // the interface's start
	api            time.Duration   // the turns' time
	lastUsage      providers.Usage // the last request's (Claude Code's current_usage)
	added, removed int             // lines the session's edits added and removed
}

// statusLineMsg carries a status line command's output, or its error.
type statusLineMsg struct {
	line string
	err  error
}

// statusLineMaxWidth is the most of a status line kept, in cells: wider
// than any terminal, so that a command printing a huge line costs one cut
// when it comes rather than one at every frame.
const statusLineMaxWidth = 1000

// statusLineDueMsg comes when the interval after the last run is over.
type statusLineDueMsg struct{}

// refreshStatusLine runs Config.StatusLine in a command: at once, or, when
// the last run started less than statusLineEvery ago, once at the end of
// that interval; a change during a run runs one more after it.
func (m *Model) refreshStatusLine() tea.Cmd { return m.runStatusLine(false) }

// runStatusLine is refreshStatusLine; due is true when the interval after
// the last run is over (its tick came), whatever the clock says.
func (m *Model) runStatusLine(due bool) tea.Cmd {
	sl := &m.sl
	switch {
	case m.cfg.StatusLine == nil:
		return nil
	case sl.running:
		sl.again = true
		return nil
	case sl.waiting:
		return nil
	}
	now := m.now()
	if wait := sl.last.Add(statusLineEvery).Sub(now); !due && !sl.last.IsZero() && wait > 0 {
		sl.waiting = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return statusLineDueMsg{} })
	}
	sl.running, sl.last = true, now
	st := m.statusState(now)
	run := m.cfg.StatusLine
	return func() tea.Msg {
		line, err := run(context.Background(), st)
		return statusLineMsg{line: line, err: err}
	}
}

// statusState is the session's state for the status line command.
func (m *Model) statusState(now time.Time) StatusState {
	st := StatusState{Model: m.bar.model, Dir: m.cfg.Dir, InputTokens: m.bar.in, OutputTokens: m.bar.out, Context: m.bar.context,
		Window: cmp.Or(m.bar.window, providers.ContextWindow(m.bar.model)), CostUSD: m.cost.session, CostKnown: m.cost.known,
		Last: m.sl.lastUsage, Duration: now.Sub(m.sl.began), APIDuration: m.sl.api, LinesAdded: m.sl.added, LinesRemoved: m.sl.removed}
	if m.session != nil {
		st.SessionID = m.session.ID
	}
	return st
}

// onStatusLine shows a status line command's output. A failure takes the
// person's line away (the built-in status bar stays) and says why once;
// a later success shows a line again.
func (m *Model) onStatusLine(msg statusLineMsg) tea.Cmd {
	sl := &m.sl
	sl.running = false
	if msg.err == nil {
		sl.line = sanitizeStatusLine(msg.line)
	} else {
		sl.line = ""
		if !sl.warned {
			sl.warned = true
			m.chat.append(newNoteItem(m.st, "The status line command failed ("+msg.err.Error()+"); the built-in status line shows alone. This is said once."))
		}
	}
	if sl.again {
		sl.again = false
		return m.refreshStatusLine()
	}
	return nil
}

// statusLineDue runs the command whose run waited for its interval.
func (m *Model) statusLineDue() tea.Cmd {
	m.sl.waiting = false
	return m.runStatusLine(true)
}

// countLines adds the lines an edit's unified diff added and removed.
func (sl *statusLineState) countLines(diff string) {
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			sl.added++
		case strings.HasPrefix(line, "-"):
			sl.removed++
		}
	}
}

// sanitizeStatusLine keeps the first line of out with its SGR colour
// sequences, at most statusLineMaxWidth cells of it; every other control
// sequence or character is dropped, so a status line cannot move the
// cursor, set the title or clear the screen.
func sanitizeStatusLine(out string) string {
	line, _, _ := strings.Cut(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var b strings.Builder
	p := ansi.NewParser()
	state := byte(0)
	cells := 0
	for len(line) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(line, state, p)
		switch {
		case width > 0 && cells+width > statusLineMaxWidth:
			return b.String() + "\x1b[m"
		case width > 0:
			cells += width
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

// statusLineRow is the person's status line cut to width, "" for none; a
// padding past the width leaves nothing of the line to show.
func (m *Model) statusLineRow() string {
	if m.sl.line == "" || m.sl.line == "\x1b[m" {
		return ""
	}
	pad := min(max(m.cfg.StatusLinePadding, 0), max(m.width, 0))
	return ansi.Truncate(strings.Repeat(" ", pad)+m.sl.line, m.width, "…")
}
