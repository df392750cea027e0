package cmd

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/providers"
)

// preparingProvider is a loop's provider that, once the model's first
// answer streams (its first event, or its end when it has none), has the
// session's sandbox begin the set-up its commands need: begun at start,
// that set-up's helper processes took the two cores from the first
// request and about doubled the time to the first text; begun here, it
// runs while the model writes, before the first tool call can need it.
type preparingProvider struct {
	providers.Provider
	once    sync.Once
	prepare func()
}

// Stream is the inner provider's, with prepare called once at the first
// event or at the end.
func (p *preparingProvider) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	defer p.once.Do(p.prepare)
	return p.Provider.Stream(ctx, req, func(ev providers.StreamEvent) {
		p.once.Do(p.prepare)
		onEvent(ev)
	})
}
