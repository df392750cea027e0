package e2e

import (
	"testing"

	"github.com/agent-dev/agent/internal/gobuild"
)

// buildAgent builds the agent as a release is built (no race detector, CGO_ENABLED=0) into dir and returns its path.
// Under -race the agent that e2e runs is this build rather than the test binary: an agent with the race detector
// took three times as long in every run (modernc.org/sqlite's pure-Go SQLite above all), which put the package past
// go test's 10-minute limit on a busy 2-core machine, while the packages' own tests keep the race detector. On CI,
// whose cross-compile step builds linux/amd64 with CGO_ENABLED=0 first, this is only a link. AGENT_E2E_RACE=1 keeps
// the test binary (the agent with the race detector).
func buildAgent(dir string) (string, error) {
	return gobuild.Build("..", ".", dir, "agent")
}

// buildAdapter builds the conformance adapter (internal/conformance/adapter),
// which the OAuth tests use as the browser, into dir.
func buildAdapter(t *testing.T, dir string) string {
	t.Helper()
	out, err := gobuild.Build("..", "./internal/conformance/adapter", dir, "adapter")
	if err != nil {
		t.Fatal(err)
	}
	return out
}
