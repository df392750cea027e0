package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// dbPath is the session database: --db, else db in the config file, else
// $XDG_DATA_HOME/agent/agent.db.
func dbPath(o *Options, getenv func(string) string) (string, error) {
	if o.DB != "" {
		return o.DB, nil
	}
	path, _, err := dbConfig(o, getenv)
	return path, err
}

// dbConfig is the session database's path (see dbPath) and how long its
// writes wait for another process's write lock: db_lock_wait in the config
// file, else 0 (sessions.DefaultLockWait). A db_lock_wait that is not a
// positive duration is a usage error.
func dbConfig(o *Options, getenv func(string) string) (string, time.Duration, error) {
	path, explicit := o.ConfigPath, o.ConfigPath != ""
	if !explicit {
		path = defaultConfigPath(getenv)
	}
	fc, err := loadFileConfig(path, explicit)
	if err != nil {
		return "", 0, err
	}
	var wait time.Duration
	if fc.DBLockWait != "" {
		if wait, err = time.ParseDuration(fc.DBLockWait); err != nil || wait <= 0 {
			return "", 0, usagef("db_lock_wait = %q in %s: want a positive duration such as \"30s\"", fc.DBLockWait, path)
		}
	}
	switch {
	case o.DB != "":
		return o.DB, wait, nil
	case fc.DB != "":
		return fc.DB, wait, nil
	}
	if p := sessions.DefaultPath(getenv); p != "" {
		return p, wait, nil
	}
	return "", 0, usagef("no place for the session database: set --db PATH or XDG_DATA_HOME")
}

// openStore opens the session database named by the options and marks
// interrupted the sessions whose process is gone.
func openStore(ctx context.Context, o *Options, getenv func(string) string) (*sessions.Store, error) {
	path, wait, err := dbConfig(o, getenv)
	if err != nil {
		return nil, err
	}
	st, err := sessions.OpenWith(ctx, path, sessions.Options{IndexProgress: indexProgress(o.notices, o.errTTY), LockWait: wait})
	if errors.Is(err, sessions.ErrNewerSchema) {
		return nil, usageError{err}
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

// sessionError maps a store lookup error to a usage error when the person
// named a session that does not exist or is ambiguous.
func sessionError(err error) error {
	if errors.Is(err, sessions.ErrNotFound) || errors.Is(err, sessions.ErrAmbiguous) {
		return usageError{err}
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
