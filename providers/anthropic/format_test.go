package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedanthropic"
	"github.com/agent-dev/agent/providers"
)

// conversation is a session with a tool round whose assistant message
// thought (signed), a redacted thought, an unsigned reasoning from a cut
// stream, two parallel calls (one with invalid arguments) and their results,
// one an error.
func conversation() []providers.Message {
	return []providers.Message{
		userMsg("fix the bug"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{
			providers.Reasoning{Text: "I should read.", Signature: "sig-a"},
			providers.Reasoning{Redacted: "opaque"},
			providers.Text{Text: "Reading."},
			providers.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
			providers.ToolCall{ID: "toolu_2", Name: "read_file", Arguments: `{"path":`},
		}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "toolu_1", Name: "read_file", Content: "package a"}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "toolu_2", Name: "read_file", Content: "bad JSON", IsError: true}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Reasoning{Text: "cut before its signature"}}},
		userMsg("go on"),
	}
}

func TestRequestMapping(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{ThinkingBudget: 2048})
	_, err := c.Stream(context.Background(), providers.Request{
		Model: "claude-x", System: "You are terse.", Messages: conversation(),
		Tools: []providers.ToolDefinition{
			{Name: "pick_tools", Description: "Pick tools."},
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := srv.Requests()[0].Params
	if p.Model != "claude-x" || p.MaxTokens != DefaultMaxOutputTokens+2048 || p.Thinking == nil || p.Thinking.Type != "enabled" || p.Thinking.BudgetTokens != 2048 {
		t.Errorf("model %q, max_tokens %d, thinking %+v", p.Model, p.MaxTokens, p.Thinking)
	}
	if len(p.System) != 1 || p.System[0].Text != "You are terse." {
		t.Errorf("system = %+v", p.System)
	}
	var schema map[string]any
	json.Unmarshal(p.Tools[1].InputSchema, &schema)
	if len(p.Tools) != 2 || schema["additionalProperties"] != false || schema["required"].([]any)[0] != "path" {
		t.Errorf("tools = %+v", p.Tools)
	}
	json.Unmarshal(p.Tools[0].InputSchema, &schema)
	if schema["type"] != "object" {
		t.Errorf("a tool without parameters has schema %s", p.Tools[0].InputSchema)
	}

	if len(p.Messages) != 3 {
		t.Fatalf("%d messages, want user, assistant, user: %+v", len(p.Messages), p.Messages)
	}
	var types []string
	for _, b := range p.Messages[1].Content {
		types = append(types, b.Type)
	}
	if !reflect.DeepEqual(types, []string{"thinking", "redacted_thinking", "text", "tool_use", "tool_use"}) {
		t.Errorf("assistant blocks = %v", types)
	}
	a := p.Messages[1].Content
	if a[0].Thinking != "I should read." || a[0].Signature != "sig-a" || a[1].Data != "opaque" || string(a[4].Input) != "{}" {
		t.Errorf("assistant blocks = %+v", a)
	}
	u := p.Messages[2].Content
	if len(u) != 3 || u[0].Type != "tool_result" || u[0].ToolUseID != "toolu_1" || u[0].ResultText() != "package a" || u[0].IsError ||
		u[1].ToolUseID != "toolu_2" || !u[1].IsError || u[2].Type != "text" || u[2].Text != "go on" {
		t.Errorf("results and prompt: %+v", u)
	}
}

func TestBreakpoints(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")), scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{})
	tools := []providers.ToolDefinition{{Name: "a"}, {Name: "b"}}
	first := []providers.Message{userMsg("hello")}
	if _, err := c.Stream(context.Background(), providers.Request{Model: "m", System: "sys", Messages: first, Tools: tools}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stream(context.Background(), providers.Request{Model: "m", System: "sys", Messages: conversation(), Tools: tools}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got, want := reqs[0].Params.Breakpoints(), []string{"tools[1]", "system[0]", "messages[0].content[0]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("first request: breakpoints %v, want %v", got, want)
	}
	// The newest message's last block, and the user message before it.
	if got, want := reqs[1].Params.Breakpoints(), []string{"tools[1]", "system[0]", "messages[0].content[0]", "messages[2].content[2]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("second request: breakpoints %v, want %v", got, want)
	}
}

func TestMaxOutputTokens(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")), scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{MaxOutputTokens: 1000})
	c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
	c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}, MaxOutputTokens: 300}, nil)
	reqs := srv.Requests()
	if reqs[0].Params.MaxTokens != 1000 || reqs[1].Params.MaxTokens != 300 || reqs[0].Params.Thinking != nil {
		t.Errorf("max_tokens %d, %d; thinking %+v", reqs[0].Params.MaxTokens, reqs[1].Params.MaxTokens, reqs[0].Params.Thinking)
	}
}

func TestAdaptiveThinking(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")), scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{ThinkingBudget: 2048})
	c.Stream(context.Background(), providers.Request{Model: "claude-opus-4-6", Messages: []providers.Message{userMsg("q")}}, nil)
	c.Stream(context.Background(), providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{userMsg("q")}, ThinkingBudget: -1}, nil)
	reqs := srv.Requests()
	if th := reqs[0].Params.Thinking; th == nil || th.Type != "adaptive" || th.BudgetTokens != 0 || !strings.Contains(string(reqs[0].Body), `"display":"summarized"`) {
		t.Errorf("claude-opus-4-6 thinking = %+v", th)
	}
	if th := reqs[1].Params.Thinking; th != nil || reqs[1].Params.MaxTokens != DefaultMaxOutputTokens {
		t.Errorf("a request that turns thinking off: %+v, max_tokens %d", th, reqs[1].Params.MaxTokens)
	}
}

// A compaction's summary request carries the history's tool_use and
// tool_result blocks: the Messages API refuses them without tools, so the
// request declares its tools and forbids calling them (tool_choice none).
func TestToolChoiceNoneKeepsTheToolsDeclared(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("Goal: fix the bug.")))
	c, _ := newClient(t, srv, Config{})
	tools := []providers.ToolDefinition{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	resp, err := c.Stream(context.Background(), providers.Request{
		Model: "claude-x", Messages: append(conversation(), userMsg("summarise")), Tools: tools, ToolChoice: providers.ToolChoiceNone,
	}, nil)
	if err != nil || resp.Message.Text() != "Goal: fix the bug." {
		t.Fatalf("the summary request was refused: %v", err)
	}
	p := srv.Requests()[0].Params
	if len(p.Tools) != 1 || !strings.Contains(string(p.ToolChoice), `"none"`) {
		t.Errorf("tools %d, tool_choice %s", len(p.Tools), p.ToolChoice)
	}
	// Without tools the scripted server answers as the API does.
	_, err = c.Stream(context.Background(), providers.Request{Model: "claude-x", Messages: conversation()}, nil)
	if err == nil || !strings.Contains(err.Error(), "must define tools") {
		t.Errorf("tool blocks without tools: %v", err)
	}
}
