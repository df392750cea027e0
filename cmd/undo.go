package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// undoOptions are the flags of `agent undo`.
type undoOptions struct {
	Session string
	Force   bool
}

// newUndoCmd builds `agent undo [--session ID] [--force]`: the files go
// back to the checkpoint of the last prompt that changed them (Host.Undo).
// runF replaces the run in tests of flag parsing; nil undoes.
func newUndoCmd(st Streams, getenv func(string) string, o *Options, runF func(context.Context, *undoOptions) error) *cobra.Command {
	opts := &undoOptions{}
	c := &cobra.Command{
		Use:   "undo",
		Short: "Put back the files the last prompt changed",
		Long: `Restores the files of a session (the latest session of this directory, or --session
ID) to the checkpoint taken before its last prompt that changed files: every change of
that prompt's turn, whoever made it (edit_file, write_file, commands, formatters, hooks),
is undone, and files the turn created are removed. Repeated undo walks back prompt by
prompt. Files changed outside the agent since the checkpoint are kept and named;
--force restores them too (undo comes back to that prompt until they are restored).
The conversation is not changed (agent rewind --scope both goes back in both).

Sessions recorded before checkpoints existed, or with them off, undo their last turn's
edit_file and write_file changes from the undo journal instead: there nothing is
changed when a file was changed outside the agent since, and commands' changes are
not tracked.`,
		Args: usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runUndo(c.Context(), st, getenv, o, opts)
		},
	}
	c.Flags().StringVar(&opts.Session, "session", "", "the session (default: the latest of this directory)")
	c.Flags().BoolVar(&opts.Force, "force", false, "restore the files changed outside the agent since the checkpoint too")
	return c
}

func runUndo(ctx context.Context, st Streams, getenv func(string) string, o *Options, opts *undoOptions) error {
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return err
	}
	defer h.Close()
	id, err := sessionFor(ctx, h, o.Dir, opts.Session, "undo")
	if err != nil {
		return err
	}
	res, journal, err := h.Undo(ctx, id, opts.Force)
	switch {
	case errors.Is(err, sessions.ErrNothingToUndo):
		return usagef("nothing to undo in session %s", id)
	case errors.Is(err, sessions.ErrChangedSince):
		return usagef("%w; nothing was changed", err)
	case err != nil:
		return err
	case journal != nil:
		return writeOut(st.Out, journalSummary(id, *journal))
	}
	return writeOut(st.Out, undoSummary(id, res, opts.Force))
}

// undoSummary says what an undo to a checkpoint restored, one file a
// line, and the files it kept.
func undoSummary(id string, res host.RewindResult, force bool) string {
	var b strings.Builder
	cp := res.Checkpoint
	switch {
	case len(res.Restored) > 0:
		fmt.Fprintf(&b, "Undid prompt %d of session %s (%s):\n", cp.N, id, quoteLine(cp.Prompt))
		writeChanges(&b, res.Restored, true)
	case len(res.Plan.Kept) > 0 && !force:
		fmt.Fprintf(&b, "Nothing restored of prompt %d of session %s (%s).\n", cp.N, id, quoteLine(cp.Prompt))
	default:
		fmt.Fprintf(&b, "Undid prompt %d of session %s (%s): the files were already as they were before it.\n", cp.N, id, quoteLine(cp.Prompt))
	}
	writeKept(&b, res.Plan)
	return b.String()
}

// journalSummary says what an undo from the journal restored, one file a
// line.
func journalSummary(id string, res sessions.UndoResult) string {
	s := fmt.Sprintf("Undid turn %d of session %s:\n", res.Turn, id)
	for _, f := range res.Restored {
		s += fmt.Sprintf("  %s %s\n", f.Action, showPath(f.Path))
	}
	return s
}
