package cmd

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tui"
)

// modePlan is plan mode: only read-only tools run, and the model proposes
// a plan through exit_plan_mode before anything changes.
const modePlan = "plan"

// planState is the permission mode in force (switched by Shift+Tab and by
// an approved plan) and how the front-end asks about a plan. It is safe for
// concurrent use.
type planState struct {
	mode atomic.Pointer[string]

	mu     sync.Mutex
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
func (p *planState) active() bool { return p.get() == modePlan }

// useDecider makes d answer the plans (the front-end's question).
func (p *planState) useDecider(d func(ctx context.Context, callID, plan string) (plan.Outcome, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decide = d
}

// tool is the exit_plan_mode tool over p: an approved plan switches the
// mode to the one the person chose.
func (p *planState) tool() *plan.Tool {
	return plan.New(plan.Config{Active: p.active, Decide: func(ctx context.Context, callID, text string) (plan.Outcome, error) {
		p.mu.Lock()
		d := p.decide
		p.mu.Unlock()
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

// stopsWithPlan reports whether ev is the end of an exit_plan_mode call
// that ends a headless run, and its plan.
func stopsWithPlan(ev loop.Event) (string, bool) {
	f, ok := ev.(loop.ToolCallFinished)
	if !ok || f.Meta[tools.MetaStop] != true {
		return "", false
	}
	text, ok := f.Meta[tools.MetaPlan].(string)
	return text, ok
}

// tuiPlan asks the person about a plan in the interface: approve and go on
// in ask or in auto mode, or keep planning with what they type.
type tuiPlan struct{ approver *tui.Approver }

func (t tuiPlan) decide(ctx context.Context, callID, text string) (plan.Outcome, error) {
	d := t.approver.Ask(ctx, tui.Question{Call: providers.ToolCall{ID: callID, Name: plan.Name}, Plan: true,
		Summary: tools.Summary{Title: "the plan", Full: text}})
	if ctx.Err() != nil {
		return plan.Outcome{}, ctx.Err()
	}
	switch {
	case d.Allow && d.Why == tui.WhyPlanAuto:
		return plan.Outcome{Approved: true, Mode: modeAuto}, nil
	case d.Allow:
		return plan.Outcome{Approved: true, Mode: modeAsk}, nil
	}
	return plan.Outcome{Feedback: d.Reason}, nil
}
