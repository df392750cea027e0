// Package providers holds the provider-neutral conversation model that the
// rest of the agent speaks: messages made of parts (text, reasoning, tool
// calls, tool results), tool definitions, requests, stream events, usage and
// the errors a provider returns. It imports nothing but the standard library;
// each vendor adapter (providers/openai) maps these types to its wire format.
package providers

import "encoding/json"

// Role says who authored a message. The values match the roles of the OpenAI
// chat completions API; the system prompt is not a message but
// Request.System.
type Role string

// The roles a Message can have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation: a role and its parts in order.
// A user message holds Text parts; an assistant message holds Reasoning,
// Text and ToolCall parts; a tool message holds exactly one ToolResult.
type Message struct {
	Role  Role
	Parts []Part
}

// Text returns the concatenation of the message's Text parts.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			s += t.Text
		}
	}
	return s
}

// ToolCalls returns the message's ToolCall parts in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// Part is one piece of a message. It is sealed: the only implementations are
// Text, Reasoning, ToolCall and ToolResult, so a type switch over them is
// complete.
type Part interface{ isPart() }

// Text is plain text written by the user or the model.
type Text struct {
	Text string
}

// Reasoning is the model's visible thinking, as sent by servers that stream a
// reasoning_content field. It is shown to people and never sent back.
type Reasoning struct {
	Text string
}

// ToolCall is the model's request to run a tool. ID is opaque and of any
// shape ("call_x", "glob:0"); Arguments is the raw JSON text the model wrote,
// which may be invalid JSON.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// ToolResult answers the ToolCall whose ID is CallID. Content is the text the
// model reads; IsError marks a failure (bad arguments, a missing file, a
// denied command) that the model can recover from.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

func (Text) isPart()       {}
func (Reasoning) isPart()  {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

// ToolDefinition describes a tool to the model. Parameters is a JSON Schema
// object for the arguments, or nil for a tool shown without parameters (a
// brief, see tools/picker).
type ToolDefinition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one call to a model: the system prompt, the conversation so far
// and the tools the model may call.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []ToolDefinition
}

// Usage counts the tokens of one response as reported by the server. Fields
// the server does not report are zero.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
	ReasoningTokens   int `json:"reasoning_tokens,omitempty"`
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
	}
}

// FinishReason is why the model stopped, in the OpenAI vocabulary ("stop",
// "tool_calls", "length", "content_filter"); empty when the server sent none.
type FinishReason string

// Finish reasons with a meaning to the loop.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
)
