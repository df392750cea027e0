package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
)

// judgePlanCommand rules on a bash command in plan mode: the user's deny
// rules first, then only a read-only command line (rules.ReadOnly: every
// simple command reads, nothing writes) runs, in the read-only sandbox;
// anything else is refused with a reason that says plan mode is on. Where
// no read-only sandbox can be enforced, a read-only line is asked about
// (denied headless): nothing runs unconfined unasked.
func (p policy) judgePlanCommand(arguments string) ruling {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal([]byte(arguments), &a) // the registry validated them
	if res := p.rules.Check(a.Command); res.Verdict == rules.Deny {
		return ruling{verdict: deny, why: res.Reason,
			reason: fmt.Sprintf("The command was not run: %s (a rule in the user's config). Do not try to get around the rule; find another way or ask the user.", res.Reason)}
	}
	res := rules.ReadOnly().Check(a.Command)
	if res.Verdict != rules.Allow {
		return ruling{verdict: deny, why: "denied: plan mode, not a read-only command",
			reason: fmt.Sprintf("The command was not run: plan mode is on, so only read-only commands run (ls, cat, grep, find, git status/log/diff/show...; no redirection to a file, no -delete, -exec or --output), and this one is not (%s). Investigate with read-only commands and tools, then call exit_plan_mode with your plan; nothing changes until the user approves it.", res.Reason)}
	}
	if !p.planSandbox {
		return ruling{verdict: askPerson, reason: "plan mode: a read-only command, but no read-only sandbox confines commands here (" + p.sandboxWhy() + ")"}
	}
	return ruling{verdict: allow, why: "plan mode: read-only command; sandbox: read-only"}
}

// modeBash is the session's bash: in plan mode, commands run in the
// read-only sandbox (readOnly, the children's bash); otherwise in the
// session's own (normal). readOnly may be nil where no read-only sandbox
// is enforced; plan mode's commands then run in normal, after a person
// approved each one (see judgePlanCommand).
type modeBash struct {
	normal, readOnly tools.Tool
	plan             func() bool // whether plan mode is on
}

// Definition is the session's bash's.
func (b modeBash) Definition() tools.Definition { return b.normal.Definition() }

// Run runs the command in the read-only sandbox in plan mode, else in the
// session's.
func (b modeBash) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	if b.readOnly != nil && b.plan() {
		return b.readOnly.Run(ctx, call)
	}
	return b.normal.Run(ctx, call)
}
