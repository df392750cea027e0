package cmd

import (
	"context"
	"sync"
	"time"

	"github.com/agent-dev/agent/hooks"
)

// defaultIdleNotification is how long the interface waits for a prompt
// after a turn before the Notification hooks hear idle_prompt (Claude
// Code's 60 s).
const defaultIdleNotification = 60 * time.Second

// idleNotifier tells the Notification hooks (kind hooks.NotifyIdle) that
// the interface has waited after seconds for a prompt since the last turn
// ended; once per wait. It is the turn runner's Watch.
type idleNotifier struct {
	after  time.Duration
	notify func(session string)

	mu     sync.Mutex
	timer  *time.Timer // the running wait's; nil while a turn runs
	closed bool
}

// watchIdle has f's Notification hooks told of every wait of its
// interface longer than after; nothing when after is 0 or no hook
// listens.
func watchIdle(ctx context.Context, f *frontEnd, after time.Duration) {
	h := f.a.hooks
	if after <= 0 || !h.has(hooks.Notification) {
		return
	}
	n := &idleNotifier{after: after, notify: func(session string) {
		h.notify(ctx, session, hooks.NotifyIdle, "agent is waiting for your input")
	}}
	f.turns.Watch = n.watch
	f.onClose(n.close)
}

// watch stops the running wait and, when the turn of session ended,
// starts the next.
func (n *idleNotifier) watch(session string, running bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
	if running || n.closed {
		return
	}
	n.timer = time.AfterFunc(n.after, func() { n.notify(session) })
}

// close stops the wait for good.
func (n *idleNotifier) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.timer != nil {
		n.timer.Stop()
	}
}
