package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/providers"
)

// A deferred tool is its name and the smallest schema; a result that
// references it sends its content, which carries the definition.
func TestDeferredToolsAreNamesAndTheirResultsText(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"))
	req := providers.Request{
		Model: "m",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "grep"}}},
			{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "p", Name: "pick_tools", Arguments: `{"names":["grep"]}`}}},
			{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "p", Name: "pick_tools",
				Content: `Loaded grep. {"name":"grep"}`, References: []string{"grep"}}}},
		},
		Tools: []providers.ToolDefinition{
			{Name: "pick_tools", Description: "Pick tools.", Parameters: json.RawMessage(`{"type":"object","properties":{"names":{"type":"array"}}}`)},
			{Name: "grep", Description: "Search file contents.\n\nMore.", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`), Deferred: true},
		},
	}
	if _, err := newClient(srv, "k").Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	grep := r.Chat.Tools[1].Function
	if grep.Name != "grep" || grep.Description != "" || string(grep.Parameters) != `{"type":"object"}` {
		t.Errorf("deferred grep sent as %+v %s", grep, grep.Parameters)
	}
	if strings.Contains(string(r.Body), "Search file contents") {
		t.Errorf("the deferred definition was sent: %s", r.Body)
	}
	if m := r.Chat.Messages[2]; m.Text() != `Loaded grep. {"name":"grep"}` {
		t.Errorf("the pick's result = %q", m.Text())
	}
}
