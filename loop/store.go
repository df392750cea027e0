package loop

import (
	"context"
	"time"

	"github.com/agent-dev/agent/providers"
)

// Store records a conversation as it happens, so that a process that dies
// loses at most the reply that was still streaming. The loop calls
// AppendMessage from the turn's goroutine, in conversation order, each call
// as the thing it records completes; StartToolCall, DecideToolCall and
// FinishToolCall come from the goroutines that run the calls (read-only
// calls run concurrently), so an implementation must be safe for concurrent
// use. Writes use a context that is not cancelled with the turn, so a
// cancelled turn is still recorded. package sessions satisfies it.
type Store interface {
	// AppendMessage records a completed message: the user's prompt, an
	// assistant message (with the usage of the response that produced it;
	// zero for others), or a tool result. An assistant message's tool calls
	// are recorded as pending.
	AppendMessage(ctx context.Context, m providers.Message, usage providers.Usage) error
	// StartToolCall records that call, from the last assistant message,
	// began to run at started.
	StartToolCall(ctx context.Context, call providers.ToolCall, started time.Time) error
	// DecideToolCall records the approval decision about call: whether it
	// may run and why (Decision.Why, possibly empty). It comes right after
	// Config.Approve returns, between StartToolCall and FinishToolCall, and
	// only for calls that asked: read-only calls, calls that failed before
	// the question (bad arguments, a failing preview) and every call when
	// Approve is nil record no decision.
	DecideToolCall(ctx context.Context, call providers.ToolCall, allowed bool, why string) error
	// FinishToolCall records call's result and its run time.
	FinishToolCall(ctx context.Context, call providers.ToolCall, result providers.ToolResult, started, finished time.Time) error
}
