package mcp

import (
	"context"
	"time"
)

// Restart defaults: the first restart waits DefaultRestartDelay, each
// next one twice as long up to maxRestartDelay; DefaultMaxRestarts
// restarts in a row that fail to connect give up.
const (
	DefaultRestartDelay = time.Second
	DefaultMaxRestarts  = 5
	maxRestartDelay     = 30 * time.Second
)

// start runs the server until the manager closes: it connects, watches the
// session, and when a server that ran stops (its process exited, its HTTP
// stream could not be resumed), restarts it after a backoff, reporting
// each change of state once. A server whose first start fails is failed
// for good (a wrong command or URL does not mend itself), as is one whose
// restarts all fail.
func (s *server) start(ctx context.Context) {
	if s.cfg.Gate != nil {
		if ok, why := s.cfg.Gate(ctx); !ok {
			s.m.mu.Lock()
			s.state, s.err = StateSkipped, why
			s.m.mu.Unlock()
			s.markReady()
			return
		}
		s.passGate()
	}
	go func() {
		select {
		case <-ctx.Done():
			s.stop()
		case <-s.m.quit.Done():
		}
	}()
	// Restarts end when the manager closes (the first start is waited
	// for by Close, as before).
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.m.quit, cancel)()
	restarts := 0
	for {
		cctx := ctx
		if restarts > 0 {
			cctx = rctx
		}
		cs, end, reason := s.connect(cctx)
		if cs == nil {
			if s.isClosing() && restarts > 0 {
				s.setFailed(reason)
				return
			}
			if s.isClosing() { // agent is stopping: nothing to report
				s.setFailed(reason)
				s.markReady()
				return
			}
			if restarts == 0 {
				s.failedToStart(reason)
				s.setFailed(reason)
				s.m.warn("MCP server %s failed: %s", s.cfg.Name, reason)
				s.markReady()
				s.m.changed() // its last known tools, offered while it started, go
				return
			}
			if restarts >= s.m.maxRestarts() {
				s.setFailed(reason)
				s.m.warn("MCP server %s failed: %s; gave up after %d restarts", s.cfg.Name, reason, restarts)
				s.m.changed()
				return
			}
			s.setReconnecting(reason)
		} else {
			// Its tools are offered before it is said: before Wait returns
			// (OpenSession's promise that they are in the first request)
			// and before a restart's note.
			s.m.changed()
			s.markReady()
			if restarts > 0 {
				s.m.warn("MCP server %s is running again", s.cfg.Name)
			}
			restarts = 0
			s.died(cs.Wait())
			end()
			if s.isClosing() {
				return
			}
			s.disconnect()
			s.m.warn("MCP server %s stopped: %s; restarting it", s.cfg.Name, s.errText())
		}
		if !s.backoff(ctx, restarts) {
			return
		}
		restarts++
	}
}

// backoff waits before restart n+1; false when the manager closed first.
func (s *server) backoff(ctx context.Context, n int) bool {
	d := s.m.opts.RestartDelay
	if d <= 0 {
		d = DefaultRestartDelay
	}
	for i := 0; i < n && d < maxRestartDelay; i++ {
		d *= 2
	}
	t := time.NewTimer(min(d, maxRestartDelay))
	defer t.Stop()
	select {
	case <-t.C:
		return !s.isClosing()
	case <-ctx.Done():
	case <-s.m.quit.Done():
	}
	return false
}

func (m *Manager) maxRestarts() int {
	if m.opts.MaxRestarts > 0 {
		return m.opts.MaxRestarts
	}
	return DefaultMaxRestarts
}

// markReady closes ready once: Wait returns after a server's first start.
func (s *server) markReady() { s.readyOnce.Do(func() { close(s.ready) }) }

func (s *server) isClosing() bool {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.closing
}

func (s *server) setFailed(reason string) {
	s.m.mu.Lock()
	s.state, s.err, s.tools, s.prompts, s.resources, s.session = StateFailed, reason, nil, nil, nil, nil
	s.m.mu.Unlock()
}

func (s *server) setReconnecting(reason string) {
	s.m.mu.Lock()
	s.state, s.err, s.session = StateReconnecting, reason, nil
	s.m.mu.Unlock()
}

// settle ends the start's deadline without ending its context: the
// server started, and the context carries its connection from now on.
func (d *startDeadline) settle() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.timer.Stop()
}
