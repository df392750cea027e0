package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// ToolNamed returns the tool definition called name in a request, or nil.
func ToolNamed(req scripted.Request, name string) *scripted.Tool {
	for i, tool := range req.Chat.Tools {
		if tool.Function.Name == name {
			return &req.Chat.Tools[i]
		}
	}
	return nil
}

// HasProperties reports whether a tool definition carries a parameter
// schema with properties (a full schema rather than a brief).
func HasProperties(tool *scripted.Tool) bool {
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	return tool != nil && json.Unmarshal(tool.Function.Parameters, &schema) == nil && len(schema.Properties) > 0
}

// ToolResults maps tool_call_id to the content of the tool messages of a
// request.
func ToolResults(req scripted.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Chat.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// AssertCallsAnswered checks that every tool call of every assistant message
// in every request is answered by a tool message with its id.
func AssertCallsAnswered(t *testing.T, reqs []scripted.Request) {
	t.Helper()
	for i, req := range reqs {
		results := ToolResults(req)
		for _, m := range req.Chat.Messages {
			for _, c := range m.ToolCalls {
				if _, ok := results[c.ID]; !ok {
					t.Errorf("request %d: tool call %s (%s) has no tool result", i+1, c.ID, c.Function.Name)
				}
			}
		}
	}
}

// LastUserText is the text of the last user message of a request.
func LastUserText(req scripted.Request) string {
	for i := len(req.Chat.Messages) - 1; i >= 0; i-- {
		if req.Chat.Messages[i].Role == "user" {
			return req.Chat.Messages[i].Text()
		}
	}
	return ""
}

// ToolOutputs are the tool results of a request's conversation, in order.
func ToolOutputs(c scripted.ChatRequest) []string {
	var out []string
	for _, m := range c.Messages {
		if m.Role == "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

// ToolsJSON is the tools array of a request as sent.
func ToolsJSON(r scripted.Request) string {
	b, _ := json.Marshal(r.Chat.Tools)
	return string(b)
}

// WriteArgs is write_file's arguments.
func WriteArgs(path, content string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return string(b)
}

// Roles lists a request's messages as role:text, tool calls and results
// marked, for comparing whole conversations.
func Roles(req scripted.Request) []string {
	var out []string
	for _, m := range req.Chat.Messages {
		s := m.Role
		switch {
		case len(m.ToolCalls) > 0:
			for _, c := range m.ToolCalls {
				s += " call:" + c.ID
			}
		case m.Role == "tool":
			s += " result:" + m.ToolCallID
		case m.Role != "system":
			s += ":" + m.Text()
		}
		out = append(out, s)
	}
	return out
}

// IsChild reports whether a request is a subagent's: its system prompt
// says so.
func IsChild(req scripted.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Text(), "You are a subagent")
}

// HasToolResults reports whether a request carries a tool result.
func HasToolResults(req scripted.ChatRequest) bool {
	for _, m := range req.Messages {
		if m.Role == "tool" {
			return true
		}
	}
	return false
}

// TaskCall is a task call of the parent.
func TaskCall(id, description, prompt string) scripted.Call {
	args, _ := json.Marshal(map[string]string{"description": description, "prompt": prompt})
	return scripted.Call{ID: id, Name: "task", Arguments: string(args)}
}
