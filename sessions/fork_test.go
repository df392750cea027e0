package sessions_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"modernc.org/sqlite"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// TestAForkIsNeverSeenWithoutItsHistory looks at the database the way
// another process's --continue does (the latest session of the directory
// and its messages) at the moment a fork copies its first message. A fork
// that could be found before its history is in would send the next prompt
// with no context.
func TestAForkIsNeverSeenWithoutItsHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	// The observer is an SQL function a trigger calls on every message
	// copied into another session, inside the forking transaction. It
	// is registered under a name of its own, for the connections opened
	// after it.
	name := fmt.Sprintf("observe_fork_%d", time.Now().UnixNano())
	var seen []string
	var other *sessions.Store
	var dir string
	err := sqlite.RegisterScalarFunction(name, 0, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		latest, err := other.Latest(ctx, dir)
		if err != nil {
			seen = append(seen, err.Error())
			return nil, nil
		}
		recs, err := other.MessageRecords(ctx, latest.ID)
		seen = append(seen, fmt.Sprintf("session %s with %d messages (%v)", latest.ID, len(recs), err))
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	other = openAt(t, path)
	dir = t.TempDir()
	ss := create(t, s, dir, "")
	rec := s.Recorder(ss.ID)
	for _, m := range []providers.Message{userMsg("go"), assistantMsg("done")} {
		must(t, rec.AppendMessage(ctx, m, providers.Usage{}))
	}
	must(t, s.SetStatus(ctx, ss.ID, sessions.StatusCompleted))
	// A temporary trigger lives on one connection: the store's writes
	// must use it.
	sessions.DB(s).SetMaxOpenConns(1)
	if _, err := sessions.DB(s).Exec(`CREATE TEMP TRIGGER observe AFTER INSERT ON messages WHEN NEW.session_id != '` + ss.ID +
		`' BEGIN SELECT ` + name + `(); END`); err != nil {
		t.Fatal(err)
	}

	fork, err := s.Fork(ctx, ss.ID)
	must(t, err)
	if len(seen) != 2 {
		t.Fatalf("the trigger ran %d times, want once per copied message", len(seen))
	}
	want := fmt.Sprintf("session %s with 2 messages (<nil>)", ss.ID)
	for _, got := range seen {
		if got != want {
			t.Errorf("while fork %s was copied, --continue found %s; want %s", fork.ID, got, want)
		}
	}
}
