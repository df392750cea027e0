package loop

import (
	"context"
	"sync"
	"time"

	"github.com/agent-dev/agent/providers"
)

// CallStore is a Store that can record a whole tool call in one write
// (package sessions: one transaction). The loop uses it for a call that
// ends within recordStartAfter of its start: its start, the decision
// about it (when one was made) and its result are written together at its
// end, instead of one write each. A call still running then has its start,
// and a decision already made, written at that moment, and the rest as it
// comes, as with a plain Store: a call that runs long, or waits for a
// person, shows as executing to another process and after a crash.
//
// A CallStore that is also a Flusher may hold the record until its next
// write (package sessions: the message of the call's result, in the same
// transaction); the loop flushes it as each batch of calls ends.
type CallStore interface {
	Store
	// RecordToolCall records call as StartToolCall, DecideToolCall (when
	// decided) and FinishToolCall would, in one write.
	RecordToolCall(ctx context.Context, call providers.ToolCall, started time.Time, decided, allowed bool, why string,
		waited time.Duration, result providers.ToolResult, finished time.Time) error
}

// recordStartAfter is how long a call runs before its start is written on
// its own (with a CallStore).
const recordStartAfter = 100 * time.Millisecond

// callRecord writes the records of one tool call through the turn's store.
type callRecord struct {
	t     *turn
	call  providers.ToolCall
	start time.Time

	mu       sync.Mutex
	timer    *time.Timer // writes the start of a call still running; nil: written at once
	started  bool        // the start is written
	finished bool
	decided  bool // a decision waits to be written with the start or the result
	allowed  bool
	why      string
	waited   time.Duration
}

// beginCall starts the records of call, which started at start: its start
// is written now, or, with a CallStore, once the call has run
// recordStartAfter or with its result, whichever comes first.
func (t *turn) beginCall(call providers.ToolCall, start time.Time) *callRecord {
	r := &callRecord{t: t, call: call, start: start}
	if _, ok := t.cfg.Store.(CallStore); !ok || t.cfg.Store == nil {
		r.started = true
		t.storeCall(func(s Store, ctx context.Context) error { return s.StartToolCall(ctx, call, start) })
		return r
	}
	r.timer = time.AfterFunc(recordStartAfter, r.writeStart)
	return r
}

// writeStart writes the start of a call still running, and a decision
// made about it.
func (r *callRecord) writeStart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started || r.finished {
		return
	}
	r.started = true
	r.t.storeCall(func(s Store, ctx context.Context) error { return s.StartToolCall(ctx, r.call, r.start) })
	if r.decided {
		r.decided = false
		r.t.storeCall(func(s Store, ctx context.Context) error {
			return s.DecideToolCall(ctx, r.call, r.allowed, r.why, r.waited)
		})
	}
}

// decide records the approval decision about the call: now when its start
// is written, else with the start or the result.
func (r *callRecord) decide(allowed bool, why string, waited time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		r.t.storeCall(func(s Store, ctx context.Context) error { return s.DecideToolCall(ctx, r.call, allowed, why, waited) })
		return
	}
	r.decided, r.allowed, r.why, r.waited = true, allowed, why, waited
}

// finish records the call's result, which came at end: with its start and
// decision in one write when neither was written yet.
func (r *callRecord) finish(result providers.ToolResult, end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.started {
		r.t.storeCall(func(s Store, ctx context.Context) error { return s.FinishToolCall(ctx, r.call, result, r.start, end) })
		return
	}
	r.t.storeCall(func(s Store, ctx context.Context) error {
		return s.(CallStore).RecordToolCall(ctx, r.call, r.start, r.decided, r.allowed, r.why, r.waited, result, end)
	})
}

// Flusher is a Store that may hold records (CallStore) until its next
// write: Flush writes what it holds, and returns why a record it held could
// not be written (a call never recorded).
type Flusher interface {
	Flush(ctx context.Context) error
}
