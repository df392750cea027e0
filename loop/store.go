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
	// waited is how long Config.Approve took to decide (a person's
	// answer can take minutes; a rule decides at once), so that the call's
	// run time can be told apart from the wait.
	DecideToolCall(ctx context.Context, call providers.ToolCall, allowed bool, why string, waited time.Duration) error
	// FinishToolCall records call's result and its times: started as
	// given to StartToolCall (before any approval wait), finished when the
	// result came.
	FinishToolCall(ctx context.Context, call providers.ToolCall, result providers.ToolResult, started, finished time.Time) error
}
