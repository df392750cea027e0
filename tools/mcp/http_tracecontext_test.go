package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/tools"
)

// A call to an HTTP MCP server made inside a span (telemetry's
// execute_tool) carries that span's W3C traceparent header, so the
// server's own trace joins the run's; requests made outside a span (the
// session's start) carry none.
func TestAnHTTPServersCallCarriesItsSpansTraceparent(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	seen := &headerLog{}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.add(r.Header.Get("traceparent"))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	m := startManager(t, []Config{{Name: "traced", URL: hs.URL}}, nil)
	seen.mu.Lock()
	atStart := slices.Clone(seen.all)
	seen.mu.Unlock()
	for _, h := range atStart {
		if h != "" {
			t.Errorf("a request of the server's start carried traceparent %q", h)
		}
	}

	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	res, err := findTool(t, m, "mcp__traced__echo").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; !slices.Contains(seen.all[len(atStart):], want) {
		t.Errorf("the call's requests carried traceparent %q, want %q", seen.all[len(atStart):], want)
	}
}
