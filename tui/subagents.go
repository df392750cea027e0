package tui

import (
	"time"

	"github.com/agent-dev/agent/loop"
)

// subagentEvent takes one event of a subagent that a task call started:
// its tokens count in the session's totals and /cost, and a block the
// interface opened for one of its calls (to ask about it, labelled with
// the child's description) ends with that call. The task call's own block
// shows the child (childView): its state, and expanded, its steps.
func (m *Model) subagentEvent(se loop.ChildEvent) {
	if b, ok := m.blocks[se.ParentCallID]; ok {
		if b.child == nil {
			b.child = newChildView(se, m.now())
		}
		if se.Event != nil {
			b.child.see(se.Event)
		}
		b.child.elapsed = m.now().Sub(b.child.start)
		b.cacheOK = false
	}
	switch ev := se.Event.(type) {
	case loop.Usage:
		m.bar.addUsage(ev.Usage.InputTokens, ev.Usage.OutputTokens)
		m.addCost(ev.Model, ev.Usage)
	case loop.ToolCallFinished:
		if b, ok := m.blocks[ev.ID]; ok && b.running() && b.origin != "" && b.origin == se.Description {
			b.finish(ev.Content, ev.IsError, ev.Duration, ev.Meta)
		}
	}
}

// childTick brings the running children's elapsed time to now (the
// spinner's tick); a block is drawn again when its second changes.
func (m *Model) childTick(now time.Time) {
	for _, b := range m.order {
		if c := b.child; c != nil && b.running() {
			if e := now.Sub(c.start); e/time.Second != c.elapsed/time.Second {
				c.elapsed = e
				b.cacheOK = false
			}
		}
	}
}
