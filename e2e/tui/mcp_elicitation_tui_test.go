//go:build linux

package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPElicitationInTmux: server-everything's trigger-elicitation-request
// asks a form; the interface shows its message and fields, the person
// types two values, and the server gets them with the defaults of the
// fields left out (SEP-1034). /mcp lists the server's prompts, and Tab
// completes one as a command.
func TestMCPElicitationInTmux(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "mcp__everything__trigger-elicitation-request", Arguments: `{}`}),
		scripted.Text("Thanks, Ada."),
	)
	cfg := e2e.MCPConfig(t, e2e.EverythingServer(bin))
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all",
		"--config", cfg, "--db", filepath.Join(t.TempDir(), "a.db")})
	s.WaitFor("Ask about this repository")
	screen := s.MCPRunning("everything")
	if !strings.Contains(screen, "/mcp__everything__args-prompt") {
		t.Errorf("/mcp does not list the prompts:\n%s", screen)
	}
	s.Text("/mcp__everything__args-pr")
	s.Keys("Tab")
	s.WaitFor("│ /mcp__everything__args-prompt")
	s.Keys("C-u")

	s.Send("ask me")
	s.AllowOnce() // the tool's call
	s.WaitFor("The MCP server everything asks: Please provide inputs")
	s.WaitFor("Answer: type the values")
	s.WaitFor("↑/↓ choose")
	s.Keys("Down", "Enter")
	s.WaitFor("Type the values as name=value")
	s.Send("name=Ada Lovelace; integer=7")
	s.WaitFor("Thanks, Ada.")
	got := e2e.ToolResults(srv.Requests()[1])["e"]
	for _, want := range []string{"- Name: Ada Lovelace", "- Favorite Integer: 7", "- Favorite Number: 3.14", `"firstLine": "It was a dark and stormy night."`} {
		if !strings.Contains(got, want) {
			t.Errorf("the server got no %q:\n%s", want, got)
		}
	}
	s.Quit()
}
