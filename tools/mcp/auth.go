package mcp

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// startDeadline bounds a server's start: its StartupTimeout, and from the
// moment an authorization begins (a person in the browser) AuthTimeout
// more, so that a server that does not answer still fails after
// StartupTimeout while a login is given the time it needs.
type startDeadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

// startContext returns the context of s's start, ended by its deadline
// (context.Cause is then context.DeadlineExceeded) or by stop.
func (s *server) startContext(ctx context.Context) (context.Context, func()) {
	sctx, cancel := context.WithCancelCause(ctx)
	d := &startDeadline{cancel: cancel}
	d.timer = time.AfterFunc(s.cfg.StartupTimeout, func() { cancel(context.DeadlineExceeded) })
	s.deadline.Store(d)
	return sctx, func() {
		d.timer.Stop()
		cancel(context.Canceled)
	}
}

// extend gives a start still under way by more from now.
func (d *startDeadline) extend(by time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if by > 0 && d.timer.Stop() {
		d.timer.Reset(by)
	}
}

// authHandler is cfg.Auth with each authorization extending the start's
// deadline by AuthTimeout; nil without cfg.Auth.
func (s *server) authHandler() auth.OAuthHandler {
	if s.cfg.Auth == nil {
		return nil
	}
	return startAuth{OAuthHandler: s.cfg.Auth, s: s}
}

type startAuth struct {
	auth.OAuthHandler
	s *server
}

func (a startAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if d := a.s.deadline.Load(); d != nil {
		d.extend(a.s.cfg.AuthTimeout)
	}
	return a.OAuthHandler.Authorize(ctx, req, resp)
}
