package cmd

import (
	"context"
	"testing"

	"github.com/agent-dev/agent/providers"
)

// streamOf is a provider whose answer is events, in order.
type streamOf []providers.StreamEvent

func (s streamOf) Stream(_ context.Context, _ providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	for _, ev := range s {
		onEvent(ev)
	}
	return &providers.Response{}, nil
}

// The sandbox's set-up begins once the model's first answer streams: at
// its first event, or at its end when it has none, and only once.
func TestSandboxPreparedOnceTheFirstAnswerStreams(t *testing.T) {
	for _, events := range []streamOf{{providers.TextDelta{Text: "a"}, providers.TextDelta{Text: "b"}}, {}} {
		prepared, atEvent := 0, []int{}
		p := &preparingProvider{Provider: events, prepare: func() { prepared++ }}
		for range 2 {
			p.Stream(context.Background(), providers.Request{}, func(providers.StreamEvent) { atEvent = append(atEvent, prepared) })
		}
		if prepared != 1 {
			t.Errorf("%d events an answer: prepared %d times over two answers, want once", len(events), prepared)
		}
		if len(events) > 0 && atEvent[0] != 1 {
			t.Errorf("the first event was delivered before the set-up began (prepared %d)", atEvent[0])
		}
	}
}
