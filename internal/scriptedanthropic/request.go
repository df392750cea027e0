package scriptedanthropic

import (
	"encoding/json"
	"net/http"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Params is Body decoded; DecodeErr the error decoding it.
	Params    Params
	DecodeErr error
	// Reply is the index of the script reply served, -1 for none.
	Reply int
	// Status is the HTTP status answered.
	Status int
	// Usage is the usage the server reported (with the simulated cache).
	Usage Usage
}

// Params is the part of a Messages API request body tests look at.
type Params struct {
	Model     string         `json:"model"`
	MaxTokens int            `json:"max_tokens"`
	Stream    bool           `json:"stream"`
	System    []ContentBlock `json:"system"`
	Messages  []Message      `json:"messages"`
	Tools     []Tool         `json:"tools"`
	// ToolChoice is the raw tool_choice, nil when absent.
	ToolChoice json.RawMessage `json:"tool_choice"`
	Thinking   *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

// Message is one message of a request.
type Message struct {
	Role    string         `json:"role"`
	Content []ContentBlock `json:"content"`
}

// ContentBlock is one content block of a request, any type.
type ContentBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	IsError      bool            `json:"is_error"`
	CacheControl *CacheControl   `json:"cache_control"`
}

// Tool is one tool definition of a request. DeferLoading keeps it out of
// the prompt until a tool_reference loads it (see deferred.go).
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading"`
	CacheControl *CacheControl   `json:"cache_control"`
}

// CacheControl is a breakpoint.
type CacheControl struct {
	Type string `json:"type"`
}

// ResultText is the text of a tool_result block's content (a string, or
// text blocks).
func (b ContentBlock) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var blocks []ContentBlock
	if json.Unmarshal(b.Content, &blocks) == nil {
		for _, c := range blocks {
			s += c.Text
		}
	}
	return s
}

// Breakpoints lists where the request's cache_control breakpoints are:
// "tools[i]", "system[i]" and "messages[i].content[j]".
func (p Params) Breakpoints() []string {
	var out []string
	for i, t := range p.Tools {
		if t.CacheControl != nil {
			out = append(out, "tools["+itoa(i)+"]")
		}
	}
	for i, b := range p.System {
		if b.CacheControl != nil {
			out = append(out, "system["+itoa(i)+"]")
		}
	}
	for i, m := range p.Messages {
		for j, b := range m.Content {
			if b.CacheControl != nil {
				out = append(out, "messages["+itoa(i)+"].content["+itoa(j)+"]")
			}
		}
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
