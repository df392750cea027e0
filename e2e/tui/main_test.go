// Package tui runs the agent's interface in tmux, as a person would in a
// terminal of 100x30: prompts, answers, approvals, the permission modes,
// MCP servers' questions and trust, subagents, queued prompts, scrollback,
// images, hooks and commands as the interface shows them.
package tui

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
