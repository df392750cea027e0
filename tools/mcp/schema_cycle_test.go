package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// TestRefCycleSchemaSkipped: a hostile server's tool whose input schema
// refers to itself (validating any arguments against it would overflow
// the stack and end the agent) is left out with a warning like any schema
// that does not compile; the other tool is offered and its arguments are
// checked.
func TestRefCycleSchemaSkipped(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "fine"}}}, nil
	}
	s.AddTool(&sdk.Tool{Name: "good", Description: "Good.", InputSchema: map[string]any{"type": "object"}}, ok)
	s.AddTool(&sdk.Tool{Name: "loop", Description: "Loop.", InputSchema: json.RawMessage(`{"type": "object", "$ref": "#"}`)}, ok)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(hs.Close)

	warned := make(chan string, 4)
	m := NewManager([]Config{{Name: "t", URL: hs.URL}}, Options{Warn: func(msg string) { warned <- msg }})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m.Start(ctx)
	defer m.Close()
	m.Wait(ctx)

	if st := m.Status()[0]; st.State != StateRunning || strings.Join(st.Tools, ",") != "mcp__t__good" {
		t.Fatalf("status %+v, want running with only good", st)
	}
	select {
	case msg := <-warned:
		if !strings.Contains(msg, "MCP server t: tool loop skipped") || !strings.Contains(msg, "$ref cycle") {
			t.Errorf("warning %q, want loop skipped for its $ref cycle", msg)
		}
	case <-ctx.Done():
		t.Fatal("no warning")
	}
	reg, err := tools.NewRegistry(m.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Validate("mcp__t__good", `{"any": [1, {"x": 2}]}`); err != nil {
		t.Errorf("good's arguments: %v", err)
	}
	// The agent goes on: the good tool runs.
	res, err := findTool(t, m, "mcp__t__good").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || res.Content != "fine" {
		t.Errorf("good: %+v %v", res, err)
	}
}
