package scripted

import (
	"encoding/json"
	"net/http"
)

// Request is one request the server received, in arrival order.
type Request struct {
	// Method and Path are the HTTP method and URL path.
	Method string
	Path   string
	// Header holds the request's headers.
	Header http.Header
	// Body is the raw body.
	Body []byte
	// Chat is Body decoded; DecodeErr says why it could not be.
	Chat      ChatRequest
	DecodeErr error
	// Reply is the index in the script of the reply served, or -1 when
	// the request got no scripted reply (beyond the script, rejected
	// stream_options, unknown path).
	Reply int
	// Status is the HTTP status the server answered.
	Status int
}

// ChatRequest is the part of a chat completions request body that tests
// look at.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
	// ToolChoice is the raw tool_choice, nil when absent.
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Stream        bool            `json:"stream"`
	StreamOptions *StreamOptions  `json:"stream_options"`
}

// MayCallTools reports whether the request lets the model call its tools:
// it has tools and its tool_choice is not "none".
func (c ChatRequest) MayCallTools() bool {
	return len(c.Tools) > 0 && string(c.ToolChoice) != `"none"`
}

// StreamOptions is the request's stream_options object.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one message of a request. Content is raw JSON because servers
// accept a string, null or an array of parts; Text decodes it.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []ToolCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	// ReasoningContent is set if a client sent reasoning back.
	ReasoningContent string `json:"reasoning_content"`
}

// HasContent reports whether the message carried a non-null content field.
func (m Message) HasContent() bool {
	return len(m.Content) > 0 && string(m.Content) != "null"
}

// Text returns the message's content as text: the string, or the
// concatenated text parts of an array; "" for null or a missing field.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		for _, p := range parts {
			s += p.Text
		}
	}
	return s
}

// ToolCall is a tool call of an assistant message in a request.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is one entry of a request's tools.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}
