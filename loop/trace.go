package loop

import (
	"context"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// Tracer sees a loop's work as it happens, for telemetry (package
// telemetry makes OpenTelemetry spans, metrics and log records of it).
// Each method is called as a piece of work starts and returns the context
// the work runs in, which may carry a span, so that what the work calls
// (a subagent's loop, a command, an HTTP request) joins it, and a func
// called once as the work ends. Turn's context is the parent of the
// turn's Request and ToolCall contexts. Methods are called from the
// turn's goroutines, ToolCall concurrently for a batch of read-only
// calls; none may block.
type Tracer interface {
	// Turn starts with Run, and with Compact (TraceTurn.Compaction).
	Turn(ctx context.Context, t TraceTurn) (context.Context, func(Done))
	// Request starts as a model request is sent, a compaction's summary
	// request included.
	Request(ctx context.Context, r TraceRequest) (context.Context, func(TraceResponse))
	// ToolCall starts as a call is about to be gated (PreToolUse hooks),
	// approved and run, all in the context it returns, as are the tool's
	// PostToolUse hooks.
	ToolCall(ctx context.Context, c TraceCall) (context.Context, func(TraceCallEnd))
}

// TraceTurn is a turn that starts.
type TraceTurn struct {
	// Session is the conversation's session id ("" when it has none).
	Session string
	// Model is the model the turn asks.
	Model string
	// Origin is the parent call of a subagent's loop (zero for the
	// session's own).
	Origin Origin
	// Prompt is the turn's user message; zero for a compaction.
	Prompt providers.Message
	// Compaction is true for Compact's turn (/compact).
	Compaction bool
}

// TraceRequest is a model request that is sent.
type TraceRequest struct {
	// Session is the conversation's session id; Model the model asked.
	Session, Model string
	// Step counts the turn's requests from 1; 0 for a compaction's.
	Step int
	// Compaction is true for the summary request of a compaction.
	Compaction bool
	// Request is what is sent (for content capture; read, never kept).
	Request providers.Request
}

// TraceResponse is how a request ended.
type TraceResponse struct {
	// Response is what arrived (never nil; partial when Err is set).
	Response *providers.Response
	Err      error
}

// TraceCall is a tool call about to be approved and run.
type TraceCall struct {
	// Session is the conversation's session id.
	Session string
	// Call is the call as the model wrote it.
	Call providers.ToolCall
	// Origin is the parent call of a subagent's loop.
	Origin Origin
	// Known is false for a call of a tool the catalog does not have (a
	// name the model made up), which fails without running.
	Known bool
}

// TraceCallEnd is how a tool call ended.
type TraceCallEnd struct {
	// Result is what the model reads (an error result for a call that was
	// denied, failed or could not run).
	Result tools.Result
	// Denied is true when a rule, a hook or a person did not allow the
	// call; Why says who decided, when known ("" when nothing said).
	Denied bool
	Why    string
	// Duration is the call's run time, Waited the time its approval took
	// (a person's answer), both in wall time.
	Duration, Waited time.Duration
}

// traceTurn starts the turn's trace, giving the turn its context.
func (t *turn) traceTurn(tt TraceTurn) func(Done) {
	if t.cfg.Trace == nil {
		return func(Done) {}
	}
	tt.Session, tt.Model, tt.Origin = t.conv.SessionID(), t.model(), t.cfg.Origin
	ctx, end := t.cfg.Trace.Turn(t.ctx, tt)
	t.ctx = ctx
	return end
}

// traceRequest starts a request's trace: the request is sent on the
// returned context.
func (t *turn) traceRequest(step int, compaction bool, req providers.Request) (context.Context, func(*providers.Response, error)) {
	if t.cfg.Trace == nil {
		return t.ctx, func(*providers.Response, error) {}
	}
	ctx, end := t.cfg.Trace.Request(t.ctx, TraceRequest{Session: t.conv.SessionID(), Model: req.Model, Step: step, Compaction: compaction, Request: req})
	return ctx, func(resp *providers.Response, err error) {
		if resp == nil {
			resp = &providers.Response{}
		}
		end(TraceResponse{Response: resp, Err: err})
	}
}

// traceCall starts a tool call's trace: p is gated, approved and runs in
// the context it gets, and reports its end through p.traced.
func (t *turn) traceCall(p prepared) prepared {
	p.ctx = t.ctx
	if t.cfg.Trace == nil {
		p.traced = func(tools.Result, time.Duration, time.Duration) {}
		return p
	}
	ctx, end := t.cfg.Trace.ToolCall(t.ctx, TraceCall{Session: t.conv.SessionID(), Call: p.call, Origin: t.cfg.Origin, Known: p.tool != nil})
	p.ctx = ctx
	p.traced = func(res tools.Result, ran, waited time.Duration) {
		denied, _ := res.Meta[tools.MetaDenied].(bool)
		why, _ := res.Meta[tools.MetaDecision].(string)
		end(TraceCallEnd{Result: res, Denied: denied, Why: why, Duration: ran, Waited: waited})
	}
	return p
}
