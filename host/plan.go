package host

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/plan"
)

// ModePlan is plan mode: only read-only tools run, and the model proposes
// a plan through exit_plan_mode before anything changes.
const ModePlan = "plan"

// planState is the permission mode in force (switched by Shift+Tab and by
// an approved plan) and how the front-end asks about a plan (decide, set
// when the agent is built). It is safe for concurrent use.
type planState struct {
	mode   atomic.Pointer[string]
	decide func(ctx context.Context, callID, plan string) (plan.Outcome, error)
}

// get is the mode in force ("" before a front-end set one).
func (p *planState) get() string {
	if m := p.mode.Load(); m != nil {
		return *m
	}
	return ""
}

// set switches the mode.
func (p *planState) set(mode string) { p.mode.Store(&mode) }

// active reports whether plan mode is on.
func (p *planState) active() bool { return p.get() == ModePlan }

// tool is the exit_plan_mode tool over p: an approved plan switches the
// mode to the one the person chose.
func (p *planState) tool() *plan.Tool {
	return plan.New(plan.Config{Active: p.active, Decide: func(ctx context.Context, callID, text string) (plan.Outcome, error) {
		d := p.decide
		if d == nil {
			return plan.Outcome{}, errors.New("nobody to ask about the plan")
		}
		o, err := d(ctx, callID, text)
		if err == nil && o.Approved {
			p.set(o.Mode)
		}
		return o, err
	}})
}

// prepare adds plan mode's instructions to the system prompt of a request
// sent while it is on (loop.Config.Prepare).
func (p *planState) prepare(req providers.Request) providers.Request {
	if p.active() {
		req.System += plan.Prompt
	}
	return req
}

// headlessPlan is a headless run's answer to a plan: nobody can approve
// it, so the run ends with the plan as its answer.
func headlessPlan(context.Context, string, string) (plan.Outcome, error) {
	return plan.Outcome{Stop: true}, nil
}
