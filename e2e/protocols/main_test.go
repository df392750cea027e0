// Package protocols drives the agent through the protocols of its other
// front-ends and providers: the Agent Client Protocol and the Claude Agent
// SDK through their official npm clients (with hooks over them), and the
// Anthropic Messages and OpenAI Responses APIs through their scripted
// servers.
package protocols

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
