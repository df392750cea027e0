package cmd

import (
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/subagent"
)

// subagentObject is the stream-json form of a subagent's event: its
// start as an init object (which agent, model and session), every other
// event as the parent's would be; each carries parent_tool_call_id, the id
// of the task call that started the child. A child's Done is a
// subagent_result object.
func subagentObject(ev subagent.Event) map[string]any {
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
