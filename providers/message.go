// Package providers holds the provider-neutral conversation model that the
// rest of the agent speaks: messages made of parts (text, reasoning, tool
// calls, tool results), tool definitions, requests, stream events, usage and
// the errors a provider returns, and what every adapter shares: the retry
// policy, the HTTP transport with its idle timeout (retry.go, transport.go)
// and the price table (price.go). It imports nothing but the standard
// library; each vendor adapter (providers/openai, providers/anthropic) maps
// these types to its wire format.
package providers

import (
	"encoding/json"
	"fmt"
)

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

// UserText is a user message of one text part.
func UserText(s string) Message {
	return Message{Role: RoleUser, Parts: []Part{Text{Text: s}}}
}

// PlainText is the message's text with each image part described in its
// place (see Image.Describe): what an adapter sends where images are not
// taken. A message without images gives Text's result.
func (m Message) PlainText() string {
	var s string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			s += p.Text
		case Image:
			if s != "" && s[len(s)-1] != '\n' {
				s += "\n"
			}
			s += p.Describe()
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
// Text, Reasoning, ToolCall, ToolResult, Image, WebSearch and Citation, so a
// type switch over them is complete.
type Part interface{ isPart() }

// Text is plain text written by the user or the model.
type Text struct {
	Text string
}

// Reasoning is the model's thinking. Servers that stream a
// reasoning_content field (OpenAI-compatible ones) send it without a
// signature, and it is shown to people and never sent back. Anthropic's
// extended thinking signs each thinking block: a Reasoning with a Signature
// must go back unchanged with the tool results that follow it, and a
// redacted thinking block (Redacted holds its opaque data, Text is empty)
// too. An adapter never sends back a Reasoning without a Signature or
// Redacted data (a stream cut before the signature leaves such a part).
type Reasoning struct {
	Text string
	// Signature is the vendor's signature of Text; empty when none came.
	Signature string
	// Redacted is the encrypted data of a redacted thinking block.
	Redacted string
	// Encrypted is an OpenAI Responses reasoning item's encrypted_content
	// and ItemID its id ("rs_..."): the Responses adapter sends such an
	// item back unchanged (its requests set store false, so the server
	// keeps nothing); every other adapter ignores both.
	Encrypted string
	ItemID    string
}

// Signed reports whether r can be sent back to the vendor that wrote it:
// it carries a signature, redacted data or encrypted content.
func (r Reasoning) Signed() bool { return r.Signature != "" || r.Redacted != "" || r.Encrypted != "" }

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
//
// References names deferred tools (ToolDefinition.Deferred) whose full
// definitions this result delivers (a pick_tools result). An adapter whose
// vendor defers tools natively (Anthropic: tool_reference blocks) sends the
// references instead of Content, and the vendor expands each definition
// where the result sits; every other adapter sends Content, which then
// carries the definitions as text.
type ToolResult struct {
	CallID     string
	Name       string
	Content    string
	IsError    bool
	References []string
	// Images are pictures the result shows after Content (an MCP server's
	// screenshot); nil for most results.
	Images []Image
}

// PlainContent is the result's content followed by a description of each
// of its images, one a line: what an adapter sends where images are not
// taken.
func (r ToolResult) PlainContent() string {
	s := r.Content
	for _, img := range r.Images {
		if s != "" {
			s += "\n"
		}
		s += img.Describe()
	}
	return s
}

// Image is a picture: a part of a user message (a pasted screenshot) or of
// a tool result. An adapter whose provider or model takes no images sends
// Describe's text in its place.
type Image struct {
	// MediaType is the MIME type: image/png, image/jpeg, image/gif or
	// image/webp.
	MediaType string
	// Data is the encoded image, as its file holds it.
	Data []byte
}

// Describe is the text sent in an image's place where images are not
// taken: "[image image/png, 4033 bytes, not shown]".
func (i Image) Describe() string {
	return fmt.Sprintf("[image %s, %d bytes, not shown]", i.MediaType, len(i.Data))
}

func (Text) isPart()       {}
func (Reasoning) isPart()  {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}
func (Image) isPart()      {}

// ToolDefinition describes a tool to the model. Parameters is a JSON Schema
// object for the arguments, or nil for a tool shown without parameters (a
// brief, see tools/picker).
//
// Deferred marks a tool whose definition must not weigh on the request's
// prefix until a ToolResult references it (see ToolResult.References): the
// Anthropic adapter sends the full definition with defer_loading, which the
// API keeps out of the prompt; an OpenAI-compatible adapter sends the name
// alone with the smallest schema ({"type":"object"}), so the tools array
// stays the same for the whole session and the model may still call it.
type ToolDefinition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	Deferred    bool
}

// Request is one call to a model: the system prompt, the conversation so far
// and the tools the model may call.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []ToolDefinition
	// MaxOutputTokens bounds the response's tokens (thinking included);
	// 0 leaves it to the adapter's configuration.
	MaxOutputTokens int
	// ThinkingBudget is the tokens the model may think before answering
	// (Anthropic's extended thinking); 0 leaves it to the adapter's
	// configuration, a negative value turns thinking off.
	ThinkingBudget int
	// CacheKey groups requests that share a prefix for the provider's
	// prompt cache (the session's id; OpenAI Responses' prompt_cache_key);
	// "" sends none.
	CacheKey string
	// ToolChoice says whether the model may call the tools: ToolChoiceAuto
	// lets it, ToolChoiceNone declares the tools (so the provider's prefix
	// cache still serves them, and the history's tool calls stay valid) but
	// forbids calling them: OpenAI's tool_choice "none", Anthropic's
	// tool_choice {"type":"none"}.
	ToolChoice ToolChoice
}

// ToolChoice is a request's rule for calling its tools.
type ToolChoice string

// The tool choices of a request.
const (
	ToolChoiceAuto ToolChoice = ""
	ToolChoiceNone ToolChoice = "none"
)

// Usage counts the tokens of one response as reported by the server. Fields
// the server does not report are zero.
//
// InputTokens counts every input token of the request, those read from or
// written to the prompt cache included (OpenAI reports it so; the
// Anthropic adapter adds its cache counts to it). CachedInputTokens is the
// part read from the cache, CacheWriteTokens the part written to it.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
	ReasoningTokens   int `json:"reasoning_tokens,omitempty"`
	CacheWriteTokens  int `json:"cache_write_tokens,omitempty"`
	// WebSearches counts the server-side web searches the response ran
	// (see WebSearch), which the vendors bill apart from tokens.
	WebSearches int `json:"web_searches,omitempty"`
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
		CacheWriteTokens:  u.CacheWriteTokens + v.CacheWriteTokens,
		WebSearches:       u.WebSearches + v.WebSearches,
	}
}

// FinishReason is why the model stopped, in the OpenAI vocabulary ("stop",
// "tool_calls", "length", "content_filter"); empty when the server sent none.
type FinishReason string

// Finish reasons with a meaning to the loop. FinishLength means the
// response was cut by the output limit (OpenAI's "length", Anthropic's
// "max_tokens"); FinishContentFilter that the vendor refused or filtered
// it (Anthropic's "refusal"); FinishPause that the server paused a long
// turn and the conversation can be sent again to continue it (Anthropic's
// "pause_turn").
const (
	FinishStop          FinishReason = "stop"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishLength        FinishReason = "length"
	FinishContentFilter FinishReason = "content_filter"
	FinishPause         FinishReason = "pause_turn"
)
