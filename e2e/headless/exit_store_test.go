package headless

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A -p run leaves the session database to its exit rather than closing it
// (no copy of the write-ahead log into the database file, no syncs), and
// the next run, which recovers the log, continues the session it recorded.
func TestARunLeavesItsSessionToTheNext(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	srv := scripted.New(t, scripted.Text("The first answer."), scripted.Text("The second answer."))
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "remember the word marmalade")})
	fi, err := os.Stat(db + "-wal")
	if err != nil || fi.Size() == 0 {
		t.Fatalf("after the run, the write-ahead log is %v (%v): the run closed the database instead of leaving it", fi, err)
	}
	res := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "which word?")})
	if res.Stdout != "The second answer.\n" {
		t.Fatalf("second run printed %q", res.Stdout)
	}
	reqs := srv.Requests()
	var texts []string
	for _, m := range reqs[1].Chat.Messages[1:] {
		texts = append(texts, m.Role+": "+m.Text())
	}
	got := strings.Join(texts, "\n")
	if !strings.Contains(got, "user: remember the word marmalade") || !strings.Contains(got, "assistant: The first answer.") {
		t.Fatalf("the continued session's request lacks the first run's messages:\n%s", got)
	}
}
