package loop_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// spanKey marks the contexts a stubTracer gives.
type spanKey struct{}

// stubTracer gives each piece of work a context naming it, and keeps the
// order in which work started and ended.
type stubTracer struct {
	mu     sync.Mutex
	events []string
}

func (s *stubTracer) log(e string) { s.mu.Lock(); s.events = append(s.events, e); s.mu.Unlock() }

func (s *stubTracer) Turn(ctx context.Context, t loop.TraceTurn) (context.Context, func(loop.Done)) {
	s.log("turn")
	return context.WithValue(ctx, spanKey{}, "turn"), func(d loop.Done) { s.log("turn end " + string(d.Reason)) }
}

func (s *stubTracer) Request(ctx context.Context, r loop.TraceRequest) (context.Context, func(loop.TraceResponse)) {
	if ctx.Value(spanKey{}) != "turn" {
		s.log("request outside its turn")
	}
	s.log("request")
	return context.WithValue(ctx, spanKey{}, "request"), func(loop.TraceResponse) { s.log("request end") }
}

func (s *stubTracer) ToolCall(ctx context.Context, c loop.TraceCall) (context.Context, func(loop.TraceCallEnd)) {
	s.log("call " + c.Call.Name)
	return context.WithValue(ctx, spanKey{}, "call "+c.Call.ID), func(e loop.TraceCallEnd) {
		if e.Denied {
			s.log("call end denied")
			return
		}
		s.log("call end " + e.Result.Content)
	}
}

// A traced turn: the gate (PreToolUse hooks), the approval, the tool and
// AfterCall (PostToolUse hooks) all run in the call's context, which is
// the turn's child; every piece of work that starts ends, once.
func TestTheGateApprovalToolAndAfterCallRunInTheCallsContext(t *testing.T) {
	tr := &stubTracer{}
	var mu sync.Mutex
	seen := map[string]any{}
	see := func(who string, ctx context.Context) { mu.Lock(); seen[who] = ctx.Value(spanKey{}); mu.Unlock() }
	echo := funcTool{"echo", false, func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		see("tool", ctx)
		return tools.Result{Content: "echoed"}, nil
	}}
	cfg := loop.Config{
		Trace: tr,
		Gate: func(ctx context.Context, _ loop.GateCall) loop.GateDecision {
			see("gate", ctx)
			return loop.GateDecision{Verdict: loop.GatePass}
		},
		Approve: func(ctx context.Context, _ loop.Approval) loop.Decision {
			see("approve", ctx)
			return loop.Decision{Allow: true}
		},
		AfterCall: func(ctx context.Context, c loop.AfterCall) tools.Result {
			see("after", ctx)
			return c.Result
		},
	}
	f := newFixture(t, cfg, []tools.Tool{echo}, fake.ToolCalls(fake.Call{ID: "c1", Name: "echo", Arguments: `{}`}), fake.Text("done"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %v: %v", done.Reason, done.Err)
	}
	for _, who := range []string{"gate", "approve", "tool", "after"} {
		if seen[who] != "call c1" {
			t.Errorf("%s ran in %v, want the call's context", who, seen[who])
		}
	}
	want := []string{"turn", "request", "request end", "call echo", "call end echoed", "request", "request end", "turn end answered"}
	if len(tr.events) != len(want) {
		t.Fatalf("events %q, want %q", tr.events, want)
	}
	for i := range want {
		if tr.events[i] != want[i] {
			t.Errorf("event %d = %q, want %q (all: %q)", i, tr.events[i], want[i], tr.events)
		}
	}
}
