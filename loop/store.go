package loop

import (
	"context"
	"time"

	"github.com/agent-dev/agent/providers"
)

// Store records the tool calls of a conversation as they run, so that a
// process that dies keeps what its tools did (the messages themselves are
// recorded by the conversation, see conversation.Recorder). StartToolCall,
// DecideToolCall and FinishToolCall come from the goroutines that run the
// calls (read-only calls run concurrently), so an implementation must be
// safe for concurrent use. Writes use a context that is not cancelled with
// the turn, so a cancelled turn is still recorded. package sessions
// satisfies it.
type Store interface {
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
