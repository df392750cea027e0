package cmd

import (
	"context"

	"github.com/agent-dev/agent/providers"
)

// preconnect returns the pool a front-end's agents send their requests
// through, with the connection to the model's server (TCP, and TLS for
// https) already opening in the background, so that the first request
// does not pay for it: -p, the SDK's protocol and the interface start it
// before the session store opens, agent acp before the client's
// initialize. ctx is the run's: the connection is closed when it ends, or
// after providers.WarmLife if no request took it. Settings that do not
// resolve preconnect nothing (newAgent reports what is wrong).
func preconnect(ctx context.Context, o *Options, getenv func(string) string) *providers.Pool {
	pool := providers.NewPool(nil)
	if s, err := resolveSettings(o, getenv); err == nil {
		pool.Preconnect(ctx, s.BaseURL)
	}
	return pool
}
