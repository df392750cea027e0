package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Desktop notifications through the terminal: when a turn ends or a
// question waits while the person looks elsewhere, the interface writes a
// sequence the terminal turns into a notification of the desktop.
//
//   - OSC 9 (iTerm2, WezTerm, Ghostty, kitty, Windows Terminal, ConEmu):
//     ESC ] 9 ; body BEL (https://iterm2.com/documentation-escape-codes.html)
//   - OSC 777 (urxvt, foot, Ghostty, VTE-based terminals built with it):
//     ESC ] 777 ; notify ; title ; body BEL
//   - the bell (BEL): every terminal; most mark the window or bounce it.
//
// Inside tmux the OSC sequences are wrapped in its passthrough (DCS tmux;
// ... ST), which tmux forwards when allow-passthrough is on; the bell
// needs nothing.

// Notification methods of NotifyConfig.Method.
const (
	NotifyAuto   = "auto"
	NotifyOSC9   = "osc9"
	NotifyOSC777 = "osc777"
	NotifyBell   = "bell"
	NotifyOff    = "off"
)

// focus is what the terminal reported of its focus (focus reporting,
// DEC mode 1004): nothing yet, in, or out.
type focus int

const (
	focusUnknown focus = iota
	focusIn
	focusOut
)

// notifier decides when the terminal is told, and how.
type notifier struct {
	method string        // osc9, osc777, bell or off (auto resolved)
	after  time.Duration // a turn this long is told without a focus report (0: never)
	tmux   bool
	focus  focus
}

// newNotifier resolves cfg's method for the terminal getenv describes.
func newNotifier(cfg NotifyConfig, getenv func(string) string) notifier {
	n := notifier{method: cfg.Method, after: cfg.After, tmux: getenv("TMUX") != ""}
	if n.method == "" || n.method == NotifyAuto {
		n.method = detectNotify(getenv)
	}
	return n
}

// detectNotify picks the method the terminal understands from what it
// leaves in the environment (variables that survive inside tmux
// included); the bell when none is known.
func detectNotify(getenv func(string) string) string {
	term, program := getenv("TERM"), getenv("TERM_PROGRAM")
	switch {
	case program == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2", program == "WezTerm", getenv("WEZTERM_PANE") != "",
		program == "ghostty", getenv("GHOSTTY_RESOURCES_DIR") != "", getenv("KITTY_WINDOW_ID") != "", strings.Contains(term, "kitty"),
		getenv("WT_SESSION") != "", getenv("ConEmuPID") != "":
		return NotifyOSC9
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt-unicode"):
		return NotifyOSC777
	}
	return NotifyBell
}

// reportsFocus is whether the view asks the terminal for focus reports.
func (n *notifier) reportsFocus() bool { return n.method != NotifyOff }

// due reports whether an event is told: the terminal said it lost the
// focus, or it said nothing of its focus and the turn ran at least after
// (ran 0: a question, told only on a loss of focus).
func (n *notifier) due(ran time.Duration) bool {
	switch {
	case n.method == NotifyOff || n.focus == focusIn:
		return false
	case n.focus == focusOut:
		return true
	}
	return n.after > 0 && ran >= n.after
}

// sequence is what tells the terminal body (one line of plain text).
func (n *notifier) sequence(body string) string {
	body = notifyText(body, 200)
	var seq string
	switch n.method {
	case NotifyOSC9:
		seq = "\x1b]9;agent: " + body + "\x07"
	case NotifyOSC777:
		seq = "\x1b]777;notify;agent;" + body + "\x07"
	case NotifyBell:
		return "\a"
	default:
		return ""
	}
	if n.tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// notifyText is s on one line without control characters (none can end
// or change the sequence it goes in), at most limit runes.
func notifyText(s string, limit int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == limit {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			r = ' '
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// notify returns the command that writes body's notification when one is
// due after an event of a turn that ran ran (0 for a question); nil when
// none is.
func (m *Model) notify(ran time.Duration, body string) tea.Cmd {
	if !m.notifier.due(ran) {
		return nil
	}
	if seq := m.notifier.sequence(body); seq != "" {
		return tea.Raw(seq)
	}
	return nil
}

// turnNotification is the body told when a turn ends with d's reason (a
// turn the person cancelled is not told: they are at the keyboard).
func turnNotification(reason, answer string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(answer), "\n")
	switch reason {
	case "answered":
		if first == "" {
			return "the turn is done"
		}
		return "done: " + first
	}
	return "the turn stopped (" + reason + ")"
}

// approvalNotification is the body told when a question waits.
func approvalNotification(req approvalRequest) string {
	switch {
	case req.text != "":
		return "a question waits: " + req.text
	case req.origin != "":
		return req.origin + " needs your permission to use " + req.call.Name
	}
	return "needs your permission to use " + req.call.Name
}

// questionWaitedMsg comes notify_after after a question was asked while
// the terminal said nothing of its focus.
type questionWaitedMsg struct{ q *pendingApproval }

// notifyQuestion tells of the question just asked: at once when the
// terminal lost the focus, else, when it never reported its focus, once
// the question has waited the configured time unanswered.
func (m *Model) notifyQuestion(req approvalRequest) tea.Cmd {
	if m.notifier.due(0) {
		return m.notify(0, approvalNotification(req))
	}
	if m.notifier.focus != focusUnknown || m.notifier.after <= 0 || m.notifier.method == NotifyOff {
		return nil
	}
	q := m.approving
	return tea.Tick(m.notifier.after, func(time.Time) tea.Msg { return questionWaitedMsg{q} })
}

// questionWaited tells of a question that still waits.
func (m *Model) questionWaited(msg questionWaitedMsg) tea.Cmd {
	if msg.q == nil || msg.q != m.approving {
		return nil
	}
	return m.notify(m.notifier.after, approvalNotification(msg.q.req))
}
