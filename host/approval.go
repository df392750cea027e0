package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// Asker answers the question about a call that the policy leaves to a
// person: the interface's menu, an ACP client's session/request_permission,
// the Claude Agent SDK's can_use_tool; a headless run's refusal (Refusal).
// It may block, and must return when ctx is cancelled.
type Asker interface {
	Ask(ctx context.Context, q Question) loop.Decision
}

// Question is what an Asker is asked: the loop's approval request, the
// tool's definition, the policy's reason for asking, and Recheck, which
// decides the call again in the mode in force (ok false: a person must
// still answer), for a question still waiting when the person switches
// the mode.
type Question struct {
	Req     loop.Approval
	Def     tools.Definition
	Reason  string
	Recheck func() (loop.Decision, bool)
	// Risk, when not empty, says why the write of Rel, a protected path
	// (git metadata, the agent's own files), is dangerous: the question
	// is asked whatever the mode, and a yes covers this one call.
	Risk, Rel string
}

// approval is the one composition of approval every front-end uses: the
// user's policy in the mode of the moment first (deny rules, the sandbox,
// the mode), then the front-end's asker for what the policy leaves open.
type approval struct {
	policy policy
	mode   func() string // the permission mode in force
	asker  Asker
	// guard takes the person's yes to a write of a protected path to the
	// editing tool; nil refuses every such write.
	guard *protect.Guard
}

// newApproval composes p, read in the mode mode returns at each call, with
// a.
func newApproval(p policy, mode func() string, a Asker) *approval {
	return &approval{policy: p, mode: mode, asker: a}
}

// approve is the loop's ApproveFunc.
func (a *approval) approve(ctx context.Context, req loop.Approval) loop.Decision {
	def := req.Def
	rule := func() (loop.Decision, bool, string) {
		pol := a.policy
		pol.mode = a.mode()
		switch r := pol.decideGated(def, req.Call.Arguments, req.Gate, req.GateWhy); r.verdict {
		case allow:
			return loop.Decision{Allow: true, Why: r.why}, true, ""
		case deny:
			return loop.Decision{Reason: r.reason, Why: r.why}, true, ""
		default:
			return loop.Decision{}, false, r.reason
		}
	}
	d, ok, reason := rule()
	if risk, rel := protectedWrite(req); risk != "" {
		// Whatever the mode: the person, for this one call.
		if ok && !d.Allow {
			return d
		}
		if a.guard == nil {
			return protectedDenial(def.Name, rel, risk)
		}
		return askProtected(ctx, a.guard, rel, func(ctx context.Context) loop.Decision {
			return sameArgs(req, a.asker.Ask(ctx, Question{Req: req, Def: def, Risk: risk, Rel: rel}))
		})
	}
	if ok {
		return d
	}
	recheck := func() (loop.Decision, bool) { d, ok, _ := rule(); return d, ok }
	d = a.asker.Ask(ctx, Question{Req: req, Def: def, Reason: reason, Recheck: recheck})
	if d.Allow && d.Args != nil {
		return a.changedArgs(ctx, req, d)
	}
	// A person's yes says nothing of the sandbox (the policy's own yes,
	// after a switch of mode, already does).
	if d.Allow && def.Effects.Has(tools.RunsCommands) && strings.HasPrefix(d.Why, "person") {
		d.Why = a.policy.confined(d.Why)
	}
	return d
}

// notifyingAsker runs the Notification hooks when a person is asked, then
// asks.
type notifyingAsker struct {
	asker Asker
	hooks *hookSet
}

func (n notifyingAsker) Ask(ctx context.Context, q Question) loop.Decision {
	n.hooks.notify(ctx, q.Req.Session, hooks.NotifyPermission, fmt.Sprintf("agent needs your permission to use %s", q.Def.Name))
	return n.asker.Ask(ctx, q)
}
