package cmd

import (
	"cmp"
	"fmt"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// subagentObject is the stream-json form of a subagent's event: its
// start as an init object (which agent, model and session), every other
// event as the parent's would be; each carries parent_tool_call_id, the id
// of the task call that started the child. A child's Done is a
// subagent_result object.
func subagentObject(ev loop.ChildEvent) map[string]any {
	var obj map[string]any
	switch inner := ev.Event.(type) {
	case nil:
		if !ev.Start {
			return nil
		}
		agent := ev.Agent
		if agent == "" {
			agent = "default"
		}
		obj = map[string]any{"type": "init", "session_id": ev.Session, "agent": agent, "model": ev.Model, "description": ev.Description}
	case loop.Done:
		obj = map[string]any{"type": "subagent_result", "session_id": ev.Session, "answer": inner.Answer, "stop_reason": inner.Reason,
			"steps": inner.Steps, "usage": inner.Usage, "duration_ms": inner.Duration.Milliseconds()}
		if inner.Err != nil {
			obj["error"] = inner.Err.Error()
		}
	default:
		obj = streamObject(inner)
	}
	if obj != nil {
		obj["parent_tool_call_id"] = ev.ParentCallID
	}
	return obj
}

// subagentProgress counts a child's tokens in the turn's and, in text mode
// with progress on, writes a line per finished call of the child on
// stderr, after its description.
func (p *printer) subagentProgress(se loop.ChildEvent) {
	if p.childModels == nil {
		p.childModels, p.childCounted = map[string]string{}, map[string]bool{}
	}
	if se.Start {
		p.childModels[se.ParentCallID] = se.Model
	}
	switch ev := se.Event.(type) {
	case loop.Usage:
		// Each request at the model that answered it: a child that fell
		// back (loop.FellBack) used two.
		p.childSpend(cmp.Or(ev.Model, p.childModels[se.ParentCallID]), ev.Usage)
		p.childCounted[se.ParentCallID] = true
	case loop.Done:
		if !p.childCounted[se.ParentCallID] { // no request's usage was reported
			p.childSpend(p.childModels[se.ParentCallID], ev.Usage)
		}
	case loop.FellBack:
		if p.progress && p.format == formatText {
			discarded := ""
			if ev.Discarded {
				discarded = " (the partial answer is discarded)"
			}
			fmt.Fprintf(p.errOut, "· [%s] %s failed after its retries (%s): this turn goes on with %s%s\n", se.Description, ev.From, ev.Err, ev.To, discarded)
		}
	case loop.ToolCallFinished:
		if p.progress && p.format == formatText {
			status := "ok"
			if ev.IsError {
				status = "error: " + firstLine(ev.Content)
			}
			fmt.Fprintf(p.errOut, "· [%s] %s (%s, %s)\n", se.Description, ev.Name, status, roundDuration(ev.Duration))
		}
	}
}

// childSpend counts u, used by a subagent on model.
func (p *printer) childSpend(model string, u providers.Usage) {
	if p.children == nil {
		p.children = providers.NewSpend(nil) // counts; finish prices
	}
	p.children.Add(model, u)
}

// costed reports whether the result carries costs: the session's model
// has a price.
func (p *printer) costed(model string) bool {
	if p.pricer == nil {
		return false
	}
	_, ok := p.pricer(model)
	return ok
}
