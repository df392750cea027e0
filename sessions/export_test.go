package sessions

import (
	"context"
	"database/sql"
	"time"
)

// SetClock replaces the store's clock for created and updated times.
func SetClock(s *Store, now func() time.Time) { s.now = now }

// DB exposes the database for checks of the stored rows.
func DB(s *Store) *sql.DB { <-s.ready; return s.pool }

// Migrations returns how many schema versions this binary knows.
func Migrations() int { return len(migrations) }

// SchemaStep returns the SQL of migration i (0 brings version 0 to 1), for
// building databases of an older version.
func SchemaStep(i int) string { return migrations[i] }

// SetUndoFault makes Undo fail when it puts back a path for which fault
// returns an error.
func SetUndoFault(s *Store, fault func(path string) error) { s.undoFault = fault }

// OpenBusy opens the database at path with a busy timeout of busy per
// statement instead of five seconds, and calls onBusy each time a write
// transaction is about to try again for another's lock.
func OpenBusy(ctx context.Context, path string, busy time.Duration, onBusy func()) (*Store, error) {
	s, err := create(path, busy, 0)
	if err != nil {
		return nil, err
	}
	s.onBusy = onBusy
	s.launch(ctx, Options{})
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// StartHeld is Start whose open, when it checkpoints the write-ahead log
// (checkpointBehind), calls hold before the checkpoint runs; waiting is
// called by each write about to wait for that checkpoint.
func StartHeld(ctx context.Context, path string, hold, waiting func()) (*Store, error) {
	s, err := create(path, busyTimeout, 0)
	if err != nil {
		return nil, err
	}
	s.beforeCheckpoint, s.onCheckpointWait = hold, waiting
	s.launch(ctx, Options{})
	return s, nil
}

// SQLRunningSessions is the query MarkInterrupted starts with.
const SQLRunningSessions = sqlRunningSessions
