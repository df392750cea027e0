package sessions_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// leaverEnv, when set in a test binary's environment, makes TestMain run
// leaverMain instead of the tests: "DB|MESSAGES|BYTES".
const leaverEnv = "SESSIONS_TEST_LEAVER"

// leaverMain is a process as agent -p is one: it opens the database at db,
// records a session of n user messages of size bytes each (the last one
// says "farewell"), leaves the store and exits without closing it.
func leaverMain(spec string) error {
	f := strings.Split(spec, "|")
	if len(f) != 3 {
		return fmt.Errorf("spec %q: want DB|MESSAGES|BYTES", spec)
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return err
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	ctx := context.Background()
	s, err := sessions.Open(ctx, f[0])
	if err != nil {
		return err
	}
	ss, err := s.Create(ctx, sessions.NewSession{Dir: "/left", Title: "left"})
	if err != nil {
		return err
	}
	rec := s.Recorder(ss.ID)
	for i := range n {
		text := fmt.Sprintf("message %d ", i) + strings.Repeat("x", size)
		if i == n-1 {
			text = "farewell " + text
		}
		if err := rec.AppendMessage(ctx, userMsg(text), zeroUsage); err != nil {
			return err
		}
	}
	s.Leave()
	return nil
}

// leave runs leaverMain in a process of its own on db and waits for it.
func leave(t *testing.T, db string, messages, bytes int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%d", leaverEnv, db, messages, bytes))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("leaver: %v\n%s", err, out)
	}
}

// longLog returns the path of a database whose write-ahead log a process
// that left the store grew past a mebibyte (1.6 MB of messages).
func longLog(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "agent.db")
	leave(t, db, 40, 40_000)
	if n := size(t, db+"-wal"); n <= 1<<20 {
		t.Fatalf("the write-ahead log is %d bytes after the exit, want more than 1 MiB", n)
	}
	return db
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A process that leaves the store at its exit keeps every message it
// recorded: the write-ahead log it left behind is recovered by the next
// open.
func TestAStoreLeftAtExitKeepsItsMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "agent.db")
	leave(t, db, 20, 100)
	// Left, not closed: SQLite's close would have copied the log into the
	// database file and removed it.
	if n := size(t, db+"-wal"); n == 0 {
		t.Fatalf("the write-ahead log is empty after the exit: the store was checkpointed as it closed")
	}

	s := openAt(t, db)
	list, err := s.List(ctx, sessions.ListOptions{})
	must(t, err)
	if len(list) != 1 || list[0].Messages != 20 {
		t.Fatalf("sessions after the exit: %+v, want one of 20 messages", list)
	}
	recs, err := s.MessageRecords(ctx, list[0].ID)
	must(t, err)
	if len(recs) != 20 || !strings.HasPrefix(recs[19].Message.Text(), "farewell") {
		t.Fatalf("the session has %d messages, the last %.20q", len(recs), recs[len(recs)-1].Message.Text())
	}
	// Nothing indexed them for search as the process left (too few to be
	// worth an index write of their own): the search does first.
	hits, err := s.Search(ctx, "farewell", sessions.SearchOptions{})
	must(t, err)
	if len(hits) != 1 || hits[0].Seq != 20 {
		t.Fatalf("search for the last message: %+v", hits)
	}
}

// Processes that leave the store let its write-ahead log grow; the open
// that finds it past a mebibyte copies it into the database file in the
// background, and SQLite's next start of the log truncates the file back.
func TestAnOpenCheckpointsALongLogBehindTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	db := longLog(t)
	before := size(t, db)

	s, err := sessions.Open(ctx, db)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	s.Leave() // waits for the checkpoint the open started
	if after := size(t, db); after < before+1<<20 {
		t.Fatalf("the database file grew from %d to %d bytes: the log was not copied into it", before, after)
	}
	// A write after Leave still succeeds; it starts the log over, and the
	// file shrinks to the limit.
	ss := create(t, s, "/next", "next")
	must(t, s.Recorder(ss.ID).AppendMessage(ctx, userMsg("again"), zeroUsage))
	if n := size(t, db+"-wal"); n > 1<<20 {
		t.Fatalf("the write-ahead log is %d bytes after it started over, want at most 1 MiB", n)
	}
}

// A run writes as soon as the store is open, while the checkpoint that open
// started on a long log is still copying it: the write waits for the
// checkpoint (held here until the write waits), so that SQLite starts the
// log over at it, and the next open recovers a short log instead of the
// long one and all this run wrote.
func TestARunThatWritesAtOnceStartsALongLogOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	db := longLog(t)
	held, release := make(chan struct{}), make(chan struct{})
	waiting := make(chan struct{}, 1)
	s, err := sessions.StartHeld(ctx, db, func() { close(held); <-release }, func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	<-held // the open's checkpoint has begun
	created := make(chan error, 1)
	go func() {
		_, err := s.Create(ctx, sessions.NewSession{Dir: "/next", Title: "next"})
		created <- err
	}()
	select {
	case err := <-created:
		close(release)
		t.Fatalf("a write ended (%v) before the open's checkpoint ran: the log cannot start over", err)
	case <-waiting:
	}
	close(release)
	must(t, <-created)
	if n := size(t, db+"-wal"); n > 1<<20 {
		t.Fatalf("the write-ahead log is %d bytes after a write that followed the checkpoint, want at most 1 MiB: the log did not start over", n)
	}
	list, err := s.List(ctx, sessions.ListOptions{})
	must(t, err)
	if len(list) != 2 {
		t.Fatalf("sessions after the two runs: %+v, want two", list)
	}
}
