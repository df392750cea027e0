package fake

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/agent-dev/agent/providers"
)

func TestScript(t *testing.T) {
	p := New(
		Text("hello").WithReasoning("hm").WithUsage(10, 2),
		ToolCalls(Call{ID: "c1", Name: "grep", Arguments: `{}`}),
		Error(errors.New("boom")),
	)
	var text, reasoning string
	resp, err := p.Stream(context.Background(), providers.Request{Model: "m"}, func(e providers.StreamEvent) {
		switch e := e.(type) {
		case providers.TextDelta:
			text += e.Text
		case providers.ReasoningDelta:
			reasoning += e.Text
		}
	})
	if err != nil || text != "hello" || reasoning != "hm" || resp.Usage.InputTokens != 10 || resp.FinishReason != providers.FinishStop {
		t.Errorf("first: %+v, %v, %q, %q", resp, err, text, reasoning)
	}
	resp, _ = p.Stream(context.Background(), providers.Request{}, nil)
	if !reflect.DeepEqual(resp.Message.ToolCalls(), []providers.ToolCall{{ID: "c1", Name: "grep", Arguments: `{}`}}) || resp.FinishReason != providers.FinishToolCalls {
		t.Errorf("second: %+v", resp)
	}
	if _, err := p.Stream(context.Background(), providers.Request{}, nil); err == nil || err.Error() != "boom" {
		t.Errorf("third: %v", err)
	}
	if _, err := p.Stream(context.Background(), providers.Request{}, nil); !errors.Is(err, ErrBeyondScript) {
		t.Errorf("fourth: %v", err)
	}
	if len(p.Requests()) != 4 || p.Requests()[0].Model != "m" {
		t.Errorf("requests: %+v", p.Requests())
	}
}

func TestHoldAndCancel(t *testing.T) {
	release := make(chan struct{})
	p := New(Text("abcdef").HoldAfterEvents(1, release))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		p.WaitRequests(ctx, 1)
		cancel()
	}()
	resp, err := p.Stream(ctx, providers.Request{}, nil)
	if !errors.Is(err, context.Canceled) || resp.Message.Text() != "abc" {
		t.Errorf("%v, %q", err, resp.Message.Text())
	}
}
