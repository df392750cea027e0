package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/fake"
)

// TestMCPCommand: /mcp shows what the MCP hook reports, or how to
// configure a server when there is none.
func TestMCPCommand(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	d := newDriver(t, cfg)
	d.typeAndSend("/mcp")
	d.untilShows("No MCP servers configured")

	cfg.MCP = func() string { return "everything: running, 13 tools" }
	d = newDriver(t, cfg)
	d.typeAndSend("/mcp")
	d.untilShows("everything: running, 13 tools")
}

// TestNoticesShownOnce: a notice (an MCP server that failed) appears once
// as a note in the conversation, and the interface goes on.
func TestNoticesShownOnce(t *testing.T) {
	cfg := config(t, fake.New(fake.Text("still here")), t.TempDir(), nil)
	notices := make(chan string, 2)
	cfg.Notices = notices
	d := newDriver(t, cfg)
	notices <- "MCP server broken failed: exec: no such file"
	d.untilShows("MCP server broken failed")
	d.typeAndSend("hi")
	d.untilShows("still here")
	if n := strings.Count(d.screen(), "MCP server broken failed"); n != 1 {
		t.Errorf("the notice shows %d times:\n%s", n, d.screen())
	}
	close(notices)
}
