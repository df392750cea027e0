//go:build linux

package tui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// An MCP server's URL-mode elicitation (MCP 2025-11-25) is a question in
// the interface that shows the page's host and whole URL; once the person
// chooses to open it, $BROWSER gets the URL and the server hears accept.
func TestMCPURLElicitationOpensThePageInTmux(t *testing.T) {
	t.Parallel()
	page := "https://auth.example.com/connect?state=e2e"
	s := sdk.NewServer(&sdk.Implementation{Name: "site", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "sign_in", Description: "Sign in.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Connect your Example account.", URL: page, ElicitationID: "e2e-1"})
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the person answered " + res.Action}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(hs.Close)

	data := t.TempDir()
	opened := filepath.Join(data, "opened")
	browser := filepath.Join(data, "browser")
	os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+opened+"'\n"), 0o755)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s", Name: "mcp__site__sign_in", Arguments: `{}`}),
		scripted.Text("You are connected."),
	)
	cfg := e2e.MCPConfig(t, "[mcp.servers.site]\nurl = \""+hs.URL+"\"\n")
	tm := e2e.StartTmux(t, t.TempDir(), []string{"BROWSER=" + browser}, []string{"--base-url", srv.URL(), "--model", "scripted-model",
		"--tools", "all", "--config", cfg, "--db", filepath.Join(data, "a.db")})
	tm.WaitFor("Ask about this repository")
	tm.MCPRunning("site")
	tm.Send("connect me")
	tm.AllowOnce() // the tool's call
	screen := tm.WaitFor("Open it in the browser")
	flat := strings.Join(strings.Fields(screen), " ")
	for _, want := range []string{"asks you to open a page of auth.example.com", "Connect your Example account.", page} {
		if !strings.Contains(flat, want) {
			t.Errorf("the question does not show %q:\n%s", want, screen)
		}
	}
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("the browser opened before the person answered")
	}
	tm.AllowOnce()
	tm.WaitFor("You are connected.")
	tm.Quit()
	if got, err := os.ReadFile(opened); err != nil || string(got) != page {
		t.Errorf("the browser got %q (%v), want %s", got, err, page)
	}
	if got := e2e.ToolResults(srv.Requests()[1])["s"]; !strings.Contains(got, "the person answered accept") {
		t.Errorf("the server heard: %q", got)
	}
}
