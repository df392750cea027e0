package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/internal/scriptedanthropic"
	"github.com/agent-dev/agent/providers"
)

// Deferred tools go with defer_loading and without a breakpoint; a result
// that references them is tool_reference blocks alone.
func TestDeferredToolsAndReferences(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{})
	schema := json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)
	_, err := c.Stream(context.Background(), providers.Request{
		Model: "claude-x",
		Messages: []providers.Message{
			userMsg("grep"),
			{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "toolu_1", Name: "pick_tools", Arguments: `{"names":["grep"]}`}}},
			{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "toolu_1", Name: "pick_tools",
				Content: `Loaded grep. {"name":"grep"}`, References: []string{"grep"}}}},
		},
		Tools: []providers.ToolDefinition{
			{Name: "pick_tools", Description: "Pick tools.", Parameters: schema},
			{Name: "grep", Description: "Search.", Parameters: schema, Deferred: true},
			{Name: "read_file", Description: "Read.", Parameters: schema, Deferred: true},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := srv.Requests()[0].Params
	if p.Tools[0].DeferLoading || !p.Tools[1].DeferLoading || !p.Tools[2].DeferLoading {
		t.Errorf("defer_loading = %v %v %v, want false true true", p.Tools[0].DeferLoading, p.Tools[1].DeferLoading, p.Tools[2].DeferLoading)
	}
	if p.Tools[0].CacheControl == nil || p.Tools[2].CacheControl != nil {
		t.Errorf("the tools' breakpoint must be on the last tool in the prompt: %v", p.Breakpoints())
	}
	res := p.Messages[2].Content[0]
	if refs := res.References(); res.Type != "tool_result" || len(refs) != 1 || refs[0] != "grep" || res.ResultText() != "" {
		t.Errorf("the pick's result = %s, want one tool_reference to grep and no text", res.Content)
	}
}

// A reference to a tool the request does not defer (an MCP server's tool
// that is gone) is left out; a result left without references is its text.
func TestReferenceToAToolThatIsGoneIsText(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("ok")))
	c, _ := newClient(t, srv, Config{})
	_, err := c.Stream(context.Background(), providers.Request{
		Model: "claude-x",
		Messages: []providers.Message{
			userMsg("issue"),
			{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "toolu_1", Name: "pick_tools", Arguments: `{"names":["mcp__gh__issue"]}`}}},
			{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "toolu_1", Name: "pick_tools",
				Content: "Loaded mcp__gh__issue.", References: []string{"mcp__gh__issue"}}}},
		},
		Tools: []providers.ToolDefinition{{Name: "pick_tools", Description: "Pick tools."}, {Name: "grep", Description: "Search.", Deferred: true}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := srv.Requests()[0].Params.Messages[2].Content[0]
	if len(res.References()) != 0 || res.ResultText() != "Loaded mcp__gh__issue." {
		t.Errorf("the result = %s, want its text", res.Content)
	}
}
