package loop

import (
	"context"
	"encoding/json"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// ApproveFunc decides whether a tool call that changes the world may run. It
// may block (the TUI asks a person) and must return when ctx is cancelled.
type ApproveFunc func(ctx context.Context, req Approval) Decision

// Approval is a question to an ApproveFunc: the call, its tool and, for a
// tool that can preview its effect (tools.Previewer: an edit's diff), the
// preview; nil when there is none.
type Approval struct {
	Call    providers.ToolCall
	Def     tools.Definition
	Preview *tools.Result
	// Gate is what the gate said of the call (GatePass without a gate):
	// GateAllow needs no question, GateAsk must ask. GateWhy says who.
	Gate    GateVerdict
	GateWhy string
	// Origin says who asks: the zero value for the person's own session,
	// a subagent's parent call otherwise.
	Origin Origin
	// Session is the conversation's session id ("" when it has none).
	Session string
}

// Decision is an approval's answer. When Allow is false, Reason is given to
// the model as the tool's error result.
type Decision struct {
	Allow  bool
	Reason string
	// Why is a short phrase saying who or what decided, for the record and
	// the user, never for the model: `rule: allow "git status"`,
	// "person: once", "person: for the session", "sandbox: workspace-write,
	// network off", `denied by rule "rm"`, "yolo". The loop puts it in
	// ToolCallFinished.Meta[tools.MetaDecision] when it is not empty, and gives it
	// with Allow to Store.DecideToolCall.
	Why string
	// Args, when not nil and Allow is true, are the arguments the call
	// runs with instead of the model's (the Claude Agent SDK's host
	// answering can_use_tool with an updatedInput). The approver must have
	// decided on these arguments: the user's deny rules and the mode
	// applied to them, not to the model's. The loop validates them
	// against the tool's schema again; a call whose new arguments fail is
	// answered with the error and does not run.
	Args json.RawMessage
}
