package lsp

// The waits of a change: for a server to run, for its publishes, for its
// quiet.

import (
	"context"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// ready waits until s runs, at most until deadline; nil when it does not.
func (m *Manager) ready(ctx context.Context, s *server, deadline time.Time) *conn {
	for {
		m.mu.Lock()
		c := m.ensure(s)
		starting := s.starting
		m.mu.Unlock()
		if c != nil || starting == nil {
			return c
		}
		if !await(ctx, starting, deadline, nil) {
			return nil
		}
	}
}

// await waits for ch, at most until deadline, ctx's end or done (nil:
// never); true when ch came first.
func await(ctx context.Context, ch <-chan struct{}, deadline time.Time, done <-chan struct{}) bool {
	wait := time.Until(deadline)
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	case <-done:
	}
	return false
}

// settle waits until the server published the changed documents'
// versions and then went quiet for settleQuiet, at most until deadline;
// false when the deadline came first (a server still publishing at the
// deadline has not settled).
func (p *pending) settle(ctx context.Context, deadline time.Time) bool {
	p.c.mu.Lock()
	versioned, slowest := p.c.versioned, p.c.slowest
	p.c.mu.Unlock()
	if !versioned {
		// A server that says no versions may also say nothing of a file
		// whose diagnostics did not change (typescript-language-server
		// publishes only a change): anything it publishes starts the
		// wait for quiet, and unversionedWait of silence means it had
		// nothing to say.
		_, _, seq, next := p.c.published("")
		until := time.Now().Add(silenceMeansNothing(slowest))
		if deadline.Before(until) {
			until = deadline
		}
		if seq == p.seq && !await(ctx, next, until, p.c.done) {
			return ctx.Err() == nil && !p.c.exited() && time.Now().Before(deadline)
		}
	}
	for _, d := range p.wait {
		if versioned && !p.c.waitPublish(ctx, d.uri, d.version, p.seq, deadline) {
			return false
		}
	}
	// A server that says no versions publishes each file it checked in
	// turn; the gap between two is longer on a loaded machine.
	quietFor := settleQuiet
	if !versioned {
		p.c.mu.Lock()
		quietFor = max(settleQuiet, min(p.c.slowest/2, 2*time.Second))
		p.c.mu.Unlock()
	}
	for {
		_, _, _, next := p.c.published("")
		quiet := min(time.Until(deadline), quietFor)
		t := time.NewTimer(quiet)
		select {
		case <-next: // more came: wait for quiet again
			t.Stop()
			if !time.Now().Before(deadline) {
				return false // still publishing: not settled
			}
		case <-t.C:
			if quiet != quietFor {
				return false // a window cut by the deadline did not see it quiet
			}
			if !p.c.caughtUp(ctx, deadline) {
				return false
			}
			if _, _, _, now := p.c.published(""); now == next {
				return true
			}
			// What was left unread held publishes: wait for quiet again.
		case <-ctx.Done():
			t.Stop()
			return false
		case <-p.c.done:
			t.Stop()
			return false
		}
	}
}

// caughtUp waits until everything the server wrote has been read and
// handled (watchedReader.drained), at most until deadline: a quiet window
// seen by a reader that a loaded machine starved is no quiet while the
// server's publishes wait in the pipe. A server that exited has caught up
// (nothing more comes; what it left unread is a dead server's). False when
// the deadline or ctx's end came first.
func (c *conn) caughtUp(ctx context.Context, deadline time.Time) bool {
	for {
		if c.exited() {
			return true
		}
		ok, next := c.stdout.drained()
		if ok {
			return true
		}
		if !await(ctx, next, deadline, c.done) && !c.exited() {
			return false
		}
	}
}

// unversionedWait is how long a server that says no versions may stay
// silent after a change before the change counts as checked with nothing
// new (tsserver checks a few files in a few hundred milliseconds), unless
// the server was seen slower (silenceMeansNothing).
const unversionedWait = time.Second

// silenceMeansNothing is how long a server that says no versions may stay
// silent after a change with nothing new: unversionedWait, or twice the
// longest this server took to publish after a document was opened or
// changed (a loaded machine's tsserver may take seconds), at most 10 s;
// the change's deadline bounds it too.
func silenceMeansNothing(slowest time.Duration) time.Duration {
	return min(max(unversionedWait, 2*slowest), 10*time.Second)
}

// quiet waits until the server published nothing for settleQuiet (at
// once when its last publish is older), at most until deadline.
func (c *conn) quiet(ctx context.Context, deadline time.Time) bool {
	for {
		c.mu.Lock()
		since, next := time.Since(c.last), c.pub
		c.mu.Unlock()
		if since >= settleQuiet {
			if !c.caughtUp(ctx, deadline) {
				return false
			}
			c.mu.Lock()
			more := c.pub != next
			c.mu.Unlock()
			if !more {
				return true
			}
			continue // what was left unread held publishes
		}
		wait := settleQuiet - since
		if until := time.Until(deadline); until < wait {
			if until <= 0 {
				return false
			}
			wait = until
		}
		t := time.NewTimer(wait)
		select {
		case <-next:
			t.Stop()
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		case <-c.done:
			t.Stop()
			return false
		}
	}
}

// waitPublish waits for a publish of uri for version (or, from a server
// that does not say versions, any publish after the count since), at
// most until deadline.
func (c *conn) waitPublish(ctx context.Context, uri protocol.DocumentURI, version int32, since uint64, deadline time.Time) bool {
	for {
		p, ok, _, next := c.published(uri)
		if ok && ((p.hasVersion && p.version >= version) || (!p.hasVersion && p.seq > since)) {
			return true
		}
		if !await(ctx, next, deadline, c.done) {
			return false
		}
	}
}
