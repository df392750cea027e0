package tui

import (
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
