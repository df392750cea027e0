package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// dbPath is the session database: --db, else db in the config file, else
// $XDG_DATA_HOME/agent/agent.db; errNoDataDir when there is none.
func dbPath(fc fileConfig, o *Flags, getenv func(string) string) (string, error) {
	switch {
	case o.DB != "":
		return o.DB, nil
	case fc.DB != "":
		return fc.DB, nil
	}
	if p := sessions.DefaultPath(getenv); p != "" {
		return p, nil
	}
	return "", errNoDataDir
}

// lockWait is how long the session database's writes wait for another
// process's write lock: db_lock_wait in the config file, else 0
// (sessions.DefaultLockWait). One that is not a positive duration is a
// usage error.
func lockWait(fc fileConfig, path string) (time.Duration, error) {
	if fc.DBLockWait == "" {
		return 0, nil
	}
	wait, err := time.ParseDuration(fc.DBLockWait)
	if err != nil || wait <= 0 {
		return 0, usagef("db_lock_wait = %q in %s: want a positive duration such as \"30s\"", fc.DBLockWait, path)
	}
	return wait, nil
}

// startStore starts opening the session database (sessions.Start): the
// store it returns takes queries at once, which wait for the open.
func (h *Host) startStore(ctx context.Context) (*sessions.Store, error) {
	if h.dbErr != nil {
		return nil, h.dbErr
	}
	return sessions.Start(ctx, h.db, sessions.Options{IndexProgress: indexProgress(h.cfg.Notices, h.cfg.NoticesTTY), LockWait: h.lockWait})
}

// finishStore waits for the open of st (started with err) and marks
// interrupted the sessions whose process is gone. A store newer than this
// build is a UsageError.
func finishStore(ctx context.Context, st *sessions.Store, err error) (*sessions.Store, error) {
	if err == nil {
		err = st.Ready(ctx)
	}
	if errors.Is(err, sessions.ErrNewerSchema) {
		return nil, UsageError{Err: err}
	}
	if err != nil {
		return nil, err
	}
	// Sessions left running by a process that is gone (killed, or its disk
	// filled) say so. A store that cannot be written to keeps them as they
	// are: reading it still works.
	_, _ = st.MarkInterrupted(ctx)
	return st, nil
}

// SessionError maps a store lookup error to a usage error when the person
// named a session that does not exist or is ambiguous.
func SessionError(err error) error {
	if errors.Is(err, sessions.ErrNotFound) || errors.Is(err, sessions.ErrAmbiguous) {
		return UsageError{Err: err}
	}
	return err
}

// indexProgress tells w how the search index of the messages stored before
// it existed is being built (the first run after the upgrade): on a
// terminal one line updated in place, else a line when it starts and one
// when it ends. A nil w hears nothing.
func indexProgress(w io.Writer, tty bool) func(done, total int) {
	if w == nil {
		return nil
	}
	return func(done, total int) {
		switch {
		case tty:
			fmt.Fprintf(w, "\ragent: building the search index of past sessions (once, after an upgrade): %d of %d messages", done, total)
			if done == total {
				fmt.Fprintln(w)
			}
		case done == 0:
			fmt.Fprintf(w, "agent: building the search index of past sessions (once, after an upgrade): %d messages\n", total)
		case done == total:
			fmt.Fprintf(w, "agent: search index built: %d messages\n", total)
		}
	}
}
