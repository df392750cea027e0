package host

import (
	"context"
	"sync"
	"time"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// idleNotifier tells the Notification hooks (kind hooks.NotifyIdle) that
// the interface has waited after seconds for a prompt since the last turn
// ended; once per wait. It observes the interface's turns (a service).
type idleNotifier struct {
	after  time.Duration
	notify func(session string)

	mu     sync.Mutex
	timer  *time.Timer // the running wait's; nil while a turn runs
	closed bool
}

// newIdleNotifier tells h's Notification hooks of every wait of the
// interface for a prompt longer than after; nil when after is 0 or no
// hook listens.
func newIdleNotifier(h *hookSet, after time.Duration) *idleNotifier {
	if after <= 0 || !h.has(hooks.Notification) {
		return nil
	}
	return &idleNotifier{after: after, notify: func(session string) {
		h.notify(context.Background(), session, hooks.NotifyIdle, "agent is waiting for your input")
	}}
}

// observe stops the running wait as a turn of session starts, and starts
// the next once the turn's Done is delivered.
func (n *idleNotifier) observe(ctx context.Context, t turn.Start) (context.Context, func(loop.Event)) {
	n.watch(t.Session, true)
	return ctx, func(ev loop.Event) {
		if _, ok := ev.(loop.Done); ok {
			n.watch(t.Session, false)
		}
	}
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
