//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPElicitationInTmux: server-everything's trigger-elicitation-request
// asks a form; the interface shows its message and fields, the person
// types two values, and the server gets them with the defaults of the
// fields left out (SEP-1034). /mcp lists the server's prompts, and Tab
// completes one as a command.
func TestMCPElicitationInTmux(t *testing.T) {
	t.Parallel()
	bin := mcpBin(t)
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "e", Name: "mcp__everything__trigger-elicitation-request", Arguments: `{}`}),
		scripted.Text("Thanks, Ada."),
	)
	cfg := mcpConfig(t, everythingServer(bin))
	s := startTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--tools", "all",
		"--config", cfg, "--db", filepath.Join(t.TempDir(), "a.db")})
	s.waitFor("Ask about this repository")
	screen := s.mcpRunning("everything")
	if !strings.Contains(screen, "/mcp__everything__args-prompt") {
		t.Errorf("/mcp does not list the prompts:\n%s", screen)
	}
	s.text("/mcp__everything__args-pr")
	s.keys("Tab")
	s.waitFor("│ /mcp__everything__args-prompt")
	s.keys("C-u")

	s.send("ask me")
	s.allowOnce() // the tool's call
	s.waitFor("The MCP server everything asks: Please provide inputs")
	s.waitFor("Answer: type the values")
	s.waitFor("↑/↓ choose")
	s.keys("Down", "Enter")
	s.waitFor("Type the values as name=value")
	s.send("name=Ada Lovelace; integer=7")
	s.waitFor("Thanks, Ada.")
	got := toolResults(srv.Requests()[1])["e"]
	for _, want := range []string{"- Name: Ada Lovelace", "- Favorite Integer: 7", "- Favorite Number: 3.14", `"firstLine": "It was a dark and stormy night."`} {
		if !strings.Contains(got, want) {
			t.Errorf("the server got no %q:\n%s", want, got)
		}
	}
	s.quit()
}

// mcpRunning sends /mcp (after /clear, so that only its answer is on the
// screen) until it reports server running, and returns that screen.
func (s *tmuxSession) mcpRunning(server string) string {
	s.t.Helper()
	deadline := time.Now().Add(hangLimit)
	for {
		s.send("/clear")
		s.send("/mcp")
		screen := s.waitFor(server + ": ")
		if strings.Contains(screen, server+": running") {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("/mcp never reported %s running:\n%s", server, screen)
		}
	}
}
