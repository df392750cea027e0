package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// newUndoCmd builds `agent undo [--session ID]`: it restores every file the
// last turn of a session changed with edit_file or write_file, and refuses,
// changing nothing, when one of them was changed outside the agent since.
// Changes made by bash commands are not tracked.
func newUndoCmd(st Streams, getenv func(string) string, o *Options) *cobra.Command {
	var sessionID string
	c := &cobra.Command{
		Use:   "undo",
		Short: "Put back the files the last turn changed (edit_file, write_file)",
		Long: `Restores every file changed by the last turn of a session (the latest session of this
directory, or --session ID) to its state before the turn; files the turn created are
removed. Repeated undo walks back turn by turn. If a file was changed outside the agent
since, nothing is changed. Changes made by bash commands are not tracked.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runUndo(c.Context(), st, getenv, o, sessionID)
		},
	}
	c.Flags().StringVar(&sessionID, "session", "", "the session (default: the latest of this directory)")
	return c
}

func runUndo(ctx context.Context, st Streams, getenv func(string) string, o *Options, id string) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, o, getenv)
	if err != nil {
		return err
	}
	defer store.Close()
	var sess *sessions.Session
	if id != "" {
		sess, err = store.Get(ctx, id)
	} else if sess, err = store.Latest(ctx, dir); err != nil {
		return usagef("no session in %s to undo: %w", dir, err)
	}
	if err != nil {
		return host.SessionError(err)
	}
	root, err := os.OpenRoot(sess.Dir)
	if err != nil {
		return fmt.Errorf("session %s's directory: %w", sess.ID, err)
	}
	defer root.Close()
	res, err := store.Undo(ctx, root, sess.ID)
	switch {
	case errors.Is(err, sessions.ErrNothingToUndo):
		return usagef("nothing to undo in session %s", sess.ID)
	case errors.Is(err, sessions.ErrChangedSince):
		return usagef("%w; nothing was changed", err)
	case err != nil:
		return err
	}
	fmt.Fprint(st.Out, undoSummary(sess.ID, res))
	return nil
}

// undoSummary says what an undo restored, one file a line.
func undoSummary(id string, res sessions.UndoResult) string {
	s := fmt.Sprintf("Undid turn %d of session %s:\n", res.Turn, id)
	for _, f := range res.Restored {
		s += fmt.Sprintf("  %s %s\n", f.Action, f.Path)
	}
	return s
}
