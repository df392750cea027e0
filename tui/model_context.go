package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
)

// toolsNote lists the tools and which carry their full schema, from a
// snapshot of the session's picks.
func (m *Model) toolsNote() string {
	if m.cfg.Tools == nil {
		return "No tools in this run."
	}
	all, full := m.cfg.Tools(m.session.Conv.Picked())
	line := "Tools: " + strings.Join(all, ", ") + "."
	if len(full) > 0 {
		line += " Offered in full: " + strings.Join(full, ", ") + "."
	} else {
		line += " None picked yet: the model picks what it needs, and picks last for the session."
	}
	return line
}

// contextNote is what /context shows: the window and how the next request
// fills it, and the session's prompt-cache use.
func contextNote(c loop.Context) string {
	var b strings.Builder
	if c.Window > 0 {
		fmt.Fprintf(&b, "Context: about %s of %s tokens (%d%%)", formatTokens(c.Estimate), formatTokens(c.Window), c.Estimate*100/c.Window)
		if c.Reserved > 0 {
			fmt.Fprintf(&b, "; %s kept for the answer", formatTokens(c.Reserved))
		}
		if c.AutoCompact > 0 {
			fmt.Fprintf(&b, "; compacts past %d%% of the rest", int(c.AutoCompact*100+0.5))
		} else {
			b.WriteString("; automatic compaction is off")
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "Context: about %s tokens; the model's window is not known (set context_window in the config file).\n", formatTokens(c.Estimate))
	}
	fmt.Fprintf(&b, "  system prompt      %7s\n", formatTokens(c.System))
	fmt.Fprintf(&b, "  tool definitions   %7s\n", formatTokens(c.Tools))
	fmt.Fprintf(&b, "  history            %7s  (%d messages", formatTokens(c.History), c.Messages)
	if c.Compactions > 0 {
		fmt.Fprintf(&b, ", compacted %d×", c.Compactions)
	}
	b.WriteString(")\n")
	u := c.Usage
	fmt.Fprintf(&b, "Session: %s in, %s out", formatTokens(u.InputTokens), formatTokens(u.OutputTokens))
	if u.InputTokens > 0 {
		fmt.Fprintf(&b, ", %s read from the prompt cache (%d%%)", formatTokens(u.CachedInputTokens), u.CachedInputTokens*100/u.InputTokens)
	}
	b.WriteString(".")
	return b.String()
}

// startCompact runs /compact like a turn: its events flow through the same
// channel, and Esc cancels it.
func (m *Model) startCompact(instructions string) tea.Cmd {
	if m.running {
		m.chat.append(newNoteItem(m.st, "A turn is running: compact when it ends, or press Esc to cancel it."))
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.compacting, m.cancel, m.started, m.frame = true, true, cancel, time.Now(), 0
	m.spun.Store(m.started.UnixNano())
	m.turn++
	m.keys.running = true
	m.bar.setRunning(true, 0, 0)
	l, conv := m.loop, m.session.Conv
	return tea.Batch(func() tea.Msg { return turnStartedMsg{events: l.Compact(ctx, conv, instructions)} }, tick(m.turn, &m.spun))
}
