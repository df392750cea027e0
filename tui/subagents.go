package tui

import (
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/subagent"
)

// subagentEvent takes one event of a subagent that a task call started:
// its tokens count in the session's totals and /cost, and a block the
// interface opened for one of its calls (to ask about it, labelled with
// the child's description) ends with that call. The task call's own block
// shows the child's steps and state as its progress.
func (m *Model) subagentEvent(se subagent.Event) {
	switch ev := se.Event.(type) {
	case loop.Usage:
		m.bar.addUsage(ev.Usage.InputTokens, ev.Usage.OutputTokens)
		m.addCost(ev.Usage)
	case loop.ToolCallFinished:
		if b, ok := m.blocks[ev.ID]; ok && b.running() && b.origin != "" && b.origin == se.Description {
			b.finish(ev.Content, ev.IsError, ev.Duration, ev.Meta)
		}
	}
}
