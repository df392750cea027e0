// Package worktrees runs the agent in git worktrees of its own, as a
// person and a script would: agent --worktree with a session that changes
// nothing and one that commits (in the real sandbox), subagents with
// isolation: worktree side by side, and a session killed mid-way whose
// worktree the next start reports and agent worktree prune removes.
package worktrees

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
