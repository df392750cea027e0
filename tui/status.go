package tui

import (
	"fmt"
	"github.com/agent-dev/agent/providers"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// status is the one-line status bar under the pane. The top-level model
// feeds it through the setters (or sets the fields); Render lays it out.
//
// Segments, left to right: the warning (if any), the input's vim mode (when
// vim keys are on), the spinner and elapsed time (while a turn runs), the permission mode (ask or auto), how many
// background shells run (when any), the language servers' errors and
// warnings (when any: ✗ 2 ⚠ 5, in the warning style with errors), the model, the working directory, the
// session; on the right the session's tokens and the context used. When the
// width is short the directory is shortened first (middle cut), then
// segments are dropped, least useful first: session, tokens and cost,
// directory, context, shells, model, mode. The warning, the vim mode and
// the spinner go last.
type status struct {
	st *styles

	model   string // model name as configured
	dir     string // working directory, absolute
	home    string // the user's home directory, shown as ~; "" to keep dir as is
	session string // session title, or its short id

	in, out int // tokens sent and received during the session
	// context is the size of the conversation as of the last request
	// (input + output tokens of the last step); the percentage shown is
	// context of the model's window.
	context int
	// window is the model's context window in tokens; 0 looks it up with
	// providers.ContextWindow(model). The percentage is omitted when neither knows.
	window int

	running bool          // a turn runs: show the spinner and elapsed time
	frame   int           // spinner frame (any integer)
	elapsed time.Duration // time since the turn started

	warning string // shown first in the warning style, e.g. "YOLO: no approvals"
	vim     string // the input's vim mode ("-- INSERT --"), "" when vim keys are off
	mode    string // the permission mode ("ask", "auto"), "" when not shown

	cost string // the session's cost ("$0.0123"), "" when unknown

	shells int // background shells running

	// errors and warnings are the language servers' current diagnostics
	// of the session (shown when any).
	errors, warnings int
}

// newStatus returns the status line for model (window: its context window in
// tokens, 0 to look it up by name), the working directory dir and the
// session (its title or id). It reads the home directory once, here, to show
// dir under it as ~.
func newStatus(st *styles, model, dir, session string, window int) *status {
	home, _ := os.UserHomeDir()
	return &status{st: st, model: model, dir: dir, home: home, session: session, window: window}
}

// setModel switches the model and its context window (0: look it up).
func (s *status) setModel(model string, window int) { s.model, s.window = model, window }

// setRunning shows (on) the spinner at frame and the elapsed time of the
// running turn, or hides them.
func (s *status) setRunning(on bool, elapsed time.Duration, frame int) {
	s.running, s.elapsed, s.frame = on, elapsed, frame
}

// addUsage adds one step's tokens to the session's totals; in+out is also
// the size of the context as of that step.
func (s *status) addUsage(in, out int) {
	s.in += in
	s.out += out
	s.context = in + out
}

// resetTokens starts the counts of a fresh conversation.
func (s *status) resetTokens() { s.in, s.out, s.context = 0, 0, 0 }

// statusSeg is one segment of the status line.
type statusSeg struct {
	text   string
	warn   bool
	right  bool // right-aligned group
	prio   int  // lower is dropped first
	shrink bool // the directory: may be cut in the middle
}

// How narrow the directory may be cut before other segments go.
const (
	comfortDirWidth = 30 // before the session and the tokens are dropped
	minDirWidth     = 12 // before the directory itself is dropped
	dirPrio         = 3  // the directory's priority
)

// Render implements the component contract: exactly width cells, one line.
func (s *status) Render(width int) string {
	if width <= 0 {
		return ""
	}
	segs := s.segments()
	for {
		// The directory is cut down to comfortDirWidth while there is
		// something less useful to drop, to minDirWidth after.
		minDir := minDirWidth
		for _, g := range segs {
			if g.prio < dirPrio {
				minDir = comfortDirWidth
			}
		}
		line, ok := s.layout(segs, width, minDir)
		if ok || len(segs) <= 1 {
			return padTo(cutTo(line, width), width)
		}
		drop := 0
		for i, g := range segs {
			if g.prio < segs[drop].prio {
				drop = i
			}
		}
		segs = append(segs[:drop], segs[drop+1:]...)
	}
}

// segments lists what the status line would show given unlimited width.
func (s *status) segments() []statusSeg {
	var segs []statusSeg
	add := func(text string, prio int) *statusSeg {
		segs = append(segs, statusSeg{text: text, prio: prio})
		return &segs[len(segs)-1]
	}
	if s.warning != "" {
		add(s.warning, 9).warn = true
	}
	if s.vim != "" {
		add(s.vim, 8)
	}
	if s.running {
		add(spinnerFrame(s.frame)+" "+formatElapsed(s.elapsed), 8)
	}
	if s.mode != "" {
		add(s.mode+" mode", 7)
	}
	if s.shells > 0 {
		add(strconv.Itoa(s.shells)+" "+plural(s.shells, "shell", "shells"), 5)
	}
	if d := diagCount(s.errors, s.warnings); d != "" {
		add(d, 5).warn = s.errors > 0
	}
	if s.model != "" {
		add(s.model, 6)
	}
	if d := shortenHome(s.dir, s.home); d != "" {
		add(d, dirPrio).shrink = true
	}
	if s.session != "" {
		add(cutTo(oneLine(s.session), 32), 1)
	}
	if s.in > 0 || s.out > 0 {
		add("↑"+formatTokens(s.in)+" ↓"+formatTokens(s.out), 2).right = true
	}
	if s.cost != "" {
		add(s.cost, 2).right = true
	}
	window := s.window
	if window == 0 {
		window = providers.ContextWindow(s.model)
	}
	if window > 0 && s.context > 0 {
		pct := (s.context*100 + window/2) / window
		add("ctx "+strconv.Itoa(pct)+"%", 4).right = true
	}
	return segs
}

// layout renders segs in width cells, shortening the directory to no less
// than minDir cells if needed; ok is false when they do not fit.
func (s *status) layout(segs []statusSeg, width, minDir int) (string, bool) {
	fixed, dir, both := measureStatus(segs)
	texts := make([]string, len(segs))
	for i, g := range segs {
		texts[i] = g.text
	}
	if dir >= 0 {
		room := width - fixed
		if room < min(minDir, textWidth(segs[dir].text)) {
			return "", false
		}
		texts[dir] = cutMiddle(texts[dir], room)
		fixed += textWidth(texts[dir])
	}
	if fixed > width {
		return "", false
	}
	pad := width - fixed
	if both {
		pad += len(statusGap)
	}
	return s.join(segs, texts, pad), true
}

// statusSep separates the segments on one side of the status line;
// statusGap the left side from the right (at least).
const statusSep, statusGap = " · ", "  "

// measureStatus is the cells segs take on the status line apart from the
// directory's text: the other texts, the separators, the gap and one space
// at each end. dir is the directory's index in segs, -1 without one; both
// tells whether segments stand on the left and on the right.
func measureStatus(segs []statusSeg) (fixed, dir int, both bool) {
	sepW := textWidth(statusSep)
	fixed = 2 // one space at each end
	left, right := 0, 0
	dir = -1
	for i, g := range segs {
		if g.right {
			right++
		} else {
			left++
		}
		if g.shrink {
			dir = i
			continue
		}
		fixed += textWidth(g.text)
	}
	if left > 1 {
		fixed += (left - 1) * sepW
	}
	if right > 1 {
		fixed += (right - 1) * sepW
	}
	both = left > 0 && right > 0
	if both {
		fixed += len(statusGap)
	}
	return fixed, dir, both
}

// join draws the status line: texts (one per segment of segs) styled, the
// left ones then pad spaces then the right ones, one space at each end.
func (s *status) join(segs []statusSeg, texts []string, pad int) string {
	var l, r []string
	for i, g := range segs {
		st := s.st.Status
		if g.warn {
			st = s.st.StatusWarn
		}
		if g.right {
			r = append(r, st.Render(texts[i]))
		} else {
			l = append(l, st.Render(texts[i]))
		}
	}
	dot := s.st.Status.Render(statusSep)
	return " " + strings.Join(l, dot) + strings.Repeat(" ", pad) + strings.Join(r, dot) + " "
}

// padTo pads s with spaces to w cells.
func padTo(s string, w int) string {
	if n := w - textWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// shortenHome shows dir under home as ~/….
func shortenHome(dir, home string) string {
	home = strings.TrimRight(home, "/")
	switch {
	case home == "" || dir == "":
		return dir
	case dir == home:
		return "~"
	case strings.HasPrefix(dir, home+"/"):
		return "~" + dir[len(home):]
	}
	return dir
}

// cutMiddle cuts s to at most w cells by replacing its middle with "…",
// keeping more of the end (a path's last elements say the most).
func cutMiddle(s string, w int) string {
	sw := textWidth(s)
	if sw <= w {
		return s
	}
	if w <= 1 {
		return cutTo(s, w)
	}
	keepL := (w - 1) / 3
	keepR := w - 1 - keepL
	return ansi.Truncate(s, keepL, "") + "…" + ansi.TruncateLeft(s, sw-keepR, "")
}

// formatTokens prints a token count compactly: 950, 12.3k, 1.2M.
func formatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	default:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
	}
}

// trimZero drops a trailing ".0".
func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// formatElapsed prints whole seconds: 12s, 2m05s, 1h02m.
func formatElapsed(d time.Duration) string {
	sec := int(d / time.Second)
	switch {
	case sec < 60:
		return strconv.Itoa(sec) + "s"
	case sec < 3600:
		return fmt.Sprintf("%dm%02ds", sec/60, sec%60)
	default:
		return fmt.Sprintf("%dh%02dm", sec/3600, sec%3600/60)
	}
}

// spinnerFrame is frame i (any integer) of the spinner shown while a turn or
// a tool runs.
func spinnerFrame(i int) string {
	const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" // each 3 bytes
	n := len(frames) / 3
	i = ((i % n) + n) % n
	return frames[i*3 : i*3+3]
}
