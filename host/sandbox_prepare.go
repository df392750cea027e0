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
	// needs, when not nil, says whether a call of the tool named may need
	// the sandbox (it runs commands); a run whose calls all read files
	// begins no set-up (the sandbox still makes what a command needs when
	// one comes, waiting for it). nil: every call may.
	needs func(tool string) bool
}

// Stream is the inner provider's, with prepare called once, at the
// beginning of the first call of a tool that needs it.
func (p *preparingProvider) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	resp, err := p.Provider.Stream(ctx, req, func(ev providers.StreamEvent) {
		if b, ok := ev.(providers.ToolCallBegin); ok && p.need(b.Name) {
			p.once.Do(p.prepare)
		}
		onEvent(ev)
	})
	if resp != nil {
		for _, c := range resp.Message.ToolCalls() {
			if p.need(c.Name) {
				p.once.Do(p.prepare)
				break
			}
		}
	}
	return resp, err
}

func (p *preparingProvider) need(tool string) bool { return p.needs == nil || p.needs(tool) }
