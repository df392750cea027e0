// Package sessions runs sessions across processes: continued, resumed,
// interrupted and concurrent runs over one database, long sessions that
// compact, subagents and delegation (with plan mode and the todo list), and
// the request economy of three-turn sessions.
package sessions

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
