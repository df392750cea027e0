// Package mcp runs the agent headless with MCP servers: the reference
// servers and mcp-hub from npm, and servers of the tests' own (OAuth,
// reconnecting, list-changing, misbehaving), and the trust boundaries
// between a project's servers and the person's.
package mcp

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
