// Package headless runs the agent with -p, as scripts do: output formats,
// exit codes, the first request's budget, faults of the input and of the
// model's server, edits and undo, hooks, commands and skills, memory,
// mentions, images, protected files, the sandbox in every repository
// layout, and secrets.
package headless

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
