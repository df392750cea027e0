package loop

import (
	"context"
	"encoding/json"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// PrepareFunc is the public part of the Prepare step: it is called before
// every request, after the loop's own work (the estimate, compaction), with
// the request about to be sent, and returns the request to send. It may add
// to the system prompt or append messages that are not stored in the
// conversation (a reminder, a hook's context, plan mode's instructions);
// what it adds should go at the end, so that the cached prefix of the
// request stays the same. It must return promptly when ctx is cancelled.
type PrepareFunc func(ctx context.Context, p Preparing, req providers.Request) providers.Request

// Preparing says which request a PrepareFunc prepares.
type Preparing struct {
	// Session is the conversation's session id ("" when it has none).
	Session string
	// Step counts the turn's requests from 1.
	Step int
}

// GateFunc is asked about every tool call of a turn, read-only ones
// included, once its arguments are valid and before the approval: it may
// let the call go on as usual, allow it, deny it, insist that a person be
// asked, or replace its arguments (a PreToolUse hook). It may block, and
// must return when ctx is cancelled.
type GateFunc func(ctx context.Context, call GateCall) GateDecision

// GateCall is the question to a GateFunc.
type GateCall struct {
	Call providers.ToolCall
	Def  tools.Definition
	// Session is the conversation's session id ("" when it has none).
	Session string
	Origin  Origin
}

// GateVerdict is what a gate says of a call.
type GateVerdict int

// The verdicts of a gate.
const (
	// GatePass: no opinion; the approval decides as it would anyway.
	GatePass GateVerdict = iota
	// GateAllow: the call needs no question to a person; the approval
	// still applies the user's deny rules (Approval.Gate says so).
	GateAllow
	// GateDeny: the call does not run; Reason is its error result.
	GateDeny
	// GateAsk: a person is asked, even for a read-only call or one the
	// policy would allow.
	GateAsk
)

// GateDecision is a gate's answer.
type GateDecision struct {
	Verdict GateVerdict
	// Reason is given to the model as the error result of a denied call.
	Reason string
	// Args, when not nil, replace the call's arguments; they are validated
	// against the tool's schema again, and a call that fails is answered
	// with the error.
	Args json.RawMessage
	// Why says who decided, for the record ("hook: .claude/settings.json").
	Why string
}

// StopCheckFunc is asked when the model has answered without calling a
// tool, before the turn ends (a Stop hook). A non-empty return value is
// sent to the model as a user message and the turn goes on; the request
// that follows counts against the step limit. It may block, and must
// return when ctx is cancelled.
type StopCheckFunc func(ctx context.Context, s StopCheck) (continueWith string)

// StopCheck is the question to a StopCheckFunc.
type StopCheck struct {
	// Session is the conversation's session id ("" when it has none).
	Session string
	// Answer is the model's final text.
	Answer string
	// Step counts the turn's requests so far.
	Step int
	// Active is true when the turn already went on because of an earlier
	// check (Claude Code's stop_hook_active), so a check can avoid sending
	// the model on for ever.
	Active bool
}

// Origin says on whose behalf a loop runs turns: the zero value for the
// person's own session; for a subagent, the parent's tool call that started
// it and the description shown for it. Approvals and gates carry it, so a
// nested question says who asks.
type Origin struct {
	// ParentCallID is the id of the parent's tool call ("" at the top).
	ParentCallID string
	// Label is how people know the child ("find the config loader").
	Label string
}

// Nested reports whether the origin is a subagent's.
func (o Origin) Nested() bool { return o.ParentCallID != "" }

// gate asks the configured gate about p and applies its answer: a denial
// becomes p's failure, new arguments are validated through the catalog's
// resolve. It returns the verdict for the approval.
func (t *turn) gate(p *prepared, resolve func(name, args string) (tools.Tool, json.RawMessage, error)) GateVerdict {
	if t.cfg.Gate == nil || p.fail != "" {
		return GatePass
	}
	d := t.cfg.Gate(p.ctx, GateCall{Call: p.call, Def: p.tool.Definition(), Session: t.conv.SessionID(), Origin: t.cfg.Origin})
	if d.Verdict == GateDeny {
		p.fail = d.Reason
		if p.fail == "" {
			p.fail = "the call was blocked before it ran"
		}
		p.why = d.Why
		return GateDeny
	}
	if d.Args != nil {
		_, args, err := resolve(p.call.Name, string(d.Args))
		if err != nil {
			p.fail = "the call's arguments were replaced before it ran, and the new ones are not valid: " + err.Error()
			return GateDeny
		}
		p.args, p.call.Arguments = args, string(args)
	}
	p.why = d.Why
	return d.Verdict
}

// AfterCallFunc is asked after every tool call that ran (not one denied or
// cancelled before it ran), with its result, and returns the result the
// model gets (a PostToolUse hook may add its words). It may block, and
// must return when ctx is cancelled.
type AfterCallFunc func(ctx context.Context, call AfterCall) tools.Result

// AfterCall is the question to an AfterCallFunc.
type AfterCall struct {
	Call providers.ToolCall
	Def  tools.Definition
	// Session is the conversation's session id ("" when it has none).
	Session string
	Origin  Origin
	Result  tools.Result
}

// afterCall gives the result of p's call to Config.AfterCall.
func (t *turn) afterCall(p prepared, res tools.Result) tools.Result {
	if t.cfg.AfterCall == nil || t.ctx.Err() != nil {
		return res
	}
	return t.cfg.AfterCall(p.ctx, AfterCall{Call: p.call, Def: p.tool.Definition(), Session: t.conv.SessionID(), Origin: t.cfg.Origin, Result: res})
}

// CompactEnd says which compaction was saved, for Config.AfterCompact.
type CompactEnd struct {
	// Session is the conversation's session id ("" when it has none).
	Session string
	// Auto is true for a compaction the window's fill started.
	Auto bool
}

// CompactStart says which compaction starts, for Config.BeforeCompact.
type CompactStart struct {
	// Session is the conversation's session id ("" when it has none).
	Session string
	// Auto is true for a compaction the window's fill started, false for
	// one asked for (/compact); Instructions are what /compact was given.
	Auto         bool
	Instructions string
}
