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
	defer cancel()
	// Cancelled once the first piece is out: the request arriving is too
	// early, since the stream may not have sent anything yet.
	resp, err := p.Stream(ctx, providers.Request{}, func(providers.StreamEvent) { cancel() })
	if !errors.Is(err, context.Canceled) || resp.Message.Text() != "abc" {
		t.Errorf("%v, %q", err, resp.Message.Text())
	}
}

// A provider made with NewFunc answers each request from the request
// itself, and never runs out of replies.
func TestFunc(t *testing.T) {
	p := NewFunc(func(req providers.Request) Reply {
		if len(req.Tools) == 0 {
			return Text("no tools for " + req.Messages[0].Text())
		}
		return ToolCalls(Call{ID: "c", Name: req.Tools[0].Name, Arguments: `{}`})
	})
	user := []providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "you"}}}}
	for i := 0; i < 3; i++ {
		resp, err := p.Stream(context.Background(), providers.Request{Messages: user}, nil)
		if err != nil || resp.Message.Text() != "no tools for you" {
			t.Errorf("request %d without tools: %q, %v", i+1, resp.Message.Text(), err)
		}
	}
	resp, err := p.Stream(context.Background(), providers.Request{Messages: user, Tools: []providers.ToolDefinition{{Name: "grep"}}}, nil)
	if calls := resp.Message.ToolCalls(); err != nil || len(calls) != 1 || calls[0].Name != "grep" {
		t.Errorf("request with tools: %+v, %v", resp, err)
	}
	if n := len(p.Requests()); n != 4 {
		t.Errorf("%d requests recorded, want 4", n)
	}
}

// The finish reason is reported as scripted, and a failing reply keeps the
// text streamed before the failure.
func TestFinishAndFailure(t *testing.T) {
	cutCall := ToolCalls(Call{ID: "w", Name: "write", Arguments: `{"x":"a long conte`})
	cutCall.Text, cutCall.Finish = "Writing.", providers.FinishLength
	tests := []struct {
		name   string
		reply  Reply
		text   string
		calls  int
		finish providers.FinishReason
		err    error
	}{
		{"cut by the output limit", cutCall, "Writing.", 1, providers.FinishLength, nil},
		{"paused", Reply{Text: "Searching", Finish: providers.FinishPause}, "Searching", 0, providers.FinishPause, nil},
		{"refused", Reply{Finish: providers.FinishContentFilter}, "", 0, providers.FinishContentFilter, nil},
		{"stream cut", Reply{Text: "half an answ", Calls: []Call{{ID: "c"}}, Err: providers.ErrStreamCut}, "half an answ", 0, "", providers.ErrStreamCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deltas string
			resp, err := New(tt.reply).Stream(context.Background(), providers.Request{}, func(e providers.StreamEvent) {
				if d, ok := e.(providers.TextDelta); ok {
					deltas += d.Text
				}
			})
			if !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			if resp.Message.Text() != tt.text || deltas != tt.text {
				t.Errorf("text %q, deltas %q, want %q", resp.Message.Text(), deltas, tt.text)
			}
			if n := len(resp.Message.ToolCalls()); n != tt.calls || resp.FinishReason != tt.finish {
				t.Errorf("%d calls, finish %q; want %d and %q", n, resp.FinishReason, tt.calls, tt.finish)
			}
		})
	}
}
