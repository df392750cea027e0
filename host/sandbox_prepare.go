package host

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/providers"
)

// preparingProvider is a loop's provider that has the session's sandbox
// begin the set-up its commands need once the model starts its first tool
// call (the ToolCallBegin event, or the end of a response that carries a
// tool call when the provider reported none), so that the set-up runs
// while the call's arguments stream, before its command can need it. An
// answer of text alone begins nothing: begun at start, the set-up's
// helper processes took the two cores from the first request and about
// doubled the time to the first text; begun at the answer's first event,
// they still delayed its first text by about 10 ms (bench/protocols.sh),
// and a -p run that calls no tool paid for them in full.
type preparingProvider struct {
	providers.Provider
	once    sync.Once
	prepare func()
}

// Stream is the inner provider's, with prepare called once, at the first
// tool call's beginning.
func (p *preparingProvider) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	resp, err := p.Provider.Stream(ctx, req, func(ev providers.StreamEvent) {
		if _, ok := ev.(providers.ToolCallBegin); ok {
			p.once.Do(p.prepare)
		}
		onEvent(ev)
	})
	if resp != nil && len(resp.Message.ToolCalls()) > 0 {
		p.once.Do(p.prepare)
	}
	return resp, err
}
