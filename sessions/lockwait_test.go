package sessions_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// A message is recorded even when another process holds the write lock
// for longer than SQLite's busy timeout: the write waits its turn instead
// of failing with "database is locked" and losing the message.
func TestAWriteOutlastsAnotherProcessesLongLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	retried := make(chan struct{}, 100)
	s, err := sessions.OpenBusy(ctx, path, 20*time.Millisecond, func() { retried <- struct{}{} })
	must(t, err)
	defer s.Close()
	ss, err := s.Create(ctx, sessions.NewSession{Dir: "/w"})
	must(t, err)

	release := holdWriteLock(t, path) // the other process

	done := make(chan error, 1)
	go func() { done <- s.Recorder(ss.ID).AppendMessage(ctx, userMsg("kept"), zeroUsage) }()
	// Two busy timeouts run out while the lock is held.
	for range 2 {
		select {
		case <-retried:
		case err := <-done:
			t.Fatalf("the write gave up while the lock was held: %v", err)
		}
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("the message was not recorded: %v", err)
	}
	recs, err := s.MessageRecords(ctx, ss.ID)
	must(t, err)
	if len(recs) != 1 || recs[0].Message.Text() != "kept" {
		t.Fatalf("stored %d messages, want the one that waited", len(recs))
	}
}

// TestLockWaitBoundsTheWait holds another connection's write lock for good:
// a write of a store opened with a short LockWait fails with "database is
// locked" after one busy timeout (5 s), long before the default two minutes,
// and the store goes on working once the lock is gone.
func TestLockWaitBoundsTheWait(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	s, err := sessions.OpenWith(ctx, path, sessions.Options{LockWait: time.Millisecond})
	must(t, err)
	defer s.Close()
	ss, err := s.Create(ctx, sessions.NewSession{Dir: "/w"})
	must(t, err)

	release := holdWriteLock(t, path)

	start := time.Now()
	err = s.Recorder(ss.ID).AppendMessage(ctx, userMsg("refused"), zeroUsage)
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("a write under another's lock returned %v, want database is locked", err)
	}
	if waited := time.Since(start); waited >= sessions.DefaultLockWait/2 {
		t.Fatalf("the write waited %v, not the LockWait of a millisecond past one busy timeout", waited)
	}
	release()
	must(t, s.Recorder(ss.ID).AppendMessage(ctx, userMsg("kept"), zeroUsage))
}

// holdWriteLock stands for another process: a connection of its own to the
// database at path that holds the write lock until release (or the test's
// end).
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	other, err := sql.Open("sqlite", path)
	must(t, err)
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(ctx)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	must(t, err)
	return func() {
		_, err := conn.ExecContext(ctx, "COMMIT")
		must(t, err)
	}
}
