package host

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/agent-dev/agent/loop"
)

// changedArgs decides again a call that the asker allowed with other
// arguments (yes.Args: the Claude Agent SDK's updatedInput). The new
// arguments go through the whole approval as the model's would: the
// user's deny rules, the mode and the protected paths apply to them; what
// the policy would ask about them is the yes already given (the asker saw
// them: it wrote them). The tool still runs in the sandbox, and the loop
// validates the arguments against its schema.
func (a *approval) changedArgs(ctx context.Context, req loop.Approval, yes loop.Decision) loop.Decision {
	if SameJSON(yes.Args, json.RawMessage(req.Call.Arguments)) {
		yes.Args = nil
		return yes
	}
	again := *a
	again.asker = answered{yes: yes}
	req.Call.Arguments = string(yes.Args)
	req.Preview = nil // the model's call's; the tool checks protected paths as it runs
	d := again.approve(ctx, req)
	if d.Allow {
		d.Args = yes.Args
	}
	return d
}

// answered is the asker of a call whose new arguments were allowed: it
// says yes again for them, without a second question, and no to anything
// else (a question about a protected path's write, which a yes to other
// arguments does not cover).
type answered struct{ yes loop.Decision }

var _ Asker = answered{}

func (a answered) Ask(_ context.Context, q Question) loop.Decision {
	if q.Risk != "" {
		return loop.Decision{Reason: "The call was allowed with other arguments, which write a protected path (" + q.Rel + "); such a write runs only as the user was asked about it.",
			Why: "denied: changed arguments write a protected path"}
	}
	if !SameJSON(a.yes.Args, json.RawMessage(q.Req.Call.Arguments)) {
		return loop.Decision{Reason: "The call was allowed with other arguments than these.", Why: "denied: not the arguments allowed"}
	}
	d := a.yes
	d.Args = nil
	return d
}

// sameArgs refuses a yes with changed arguments to a question about a
// protected path's write: that yes covers the one call that was shown.
func sameArgs(req loop.Approval, d loop.Decision) loop.Decision {
	if !d.Allow || d.Args == nil {
		return d
	}
	if !SameJSON(d.Args, json.RawMessage(req.Call.Arguments)) {
		return loop.Decision{Reason: "The call writes a protected path and was allowed only with other arguments; such a write runs only as the user was asked about it.",
			Why: "denied: protected path, arguments changed"}
	}
	d.Args = nil
	return d
}

// SameJSON reports whether a and b are the same JSON value.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
