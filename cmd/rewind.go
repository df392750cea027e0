package cmd

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// rewindOptions are the flags of `agent rewind`.
type rewindOptions struct {
	Session string
	To      string
	Scope   host.RewindScope
	DryRun  bool
	Force   bool
	JSON    bool
}

// newRewindCmd builds `agent rewind --to N|PROMPT_ID [--scope code|conversation|both]`:
// a stored session (the latest of this directory, or --session ID) goes
// back to the checkpoint of one of its prompts. runF replaces the run in
// tests of flag parsing; nil rewinds.
func newRewindCmd(st Streams, getenv func(string) string, o *Options, runF func(context.Context, *rewindOptions) error) *cobra.Command {
	opts := &rewindOptions{}
	var scope string
	c := &cobra.Command{
		Use:   "rewind --to N|PROMPT_ID",
		Short: "Go back to the checkpoint of a prompt: the files, the conversation, or both",
		Long: `Every prompt takes a checkpoint of the working directory's files (those git would
see, whoever changed them: edits, commands, formatters, hooks). agent rewind puts a
session (the latest of this directory, or --session ID) back to the checkpoint of one
of its prompts, named by its number (agent sessions show lists them) or its id:

  --scope code           the files as they were before the prompt; the conversation goes on
  --scope conversation   a new session forked before the prompt (continue it with
                         agent -r ID); the files and the session stay as they are
  --scope both           both

Files changed outside the agent since the checkpoint are kept and named; --force
restores them too. Files ignored by git, .git itself and the project's protected
files are never written. --dry-run shows what would change and changes nothing.`,
		Args: usageExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.To == "" {
				return usagef("agent rewind needs --to: a prompt's number (agent sessions show lists them) or its id")
			}
			var err error
			if opts.Scope, err = host.ParseRewindScope(scope); err != nil {
				return err
			}
			if opts.Scope == host.ScopeSummarize {
				return usagef("--scope summarize needs the session's model, which agent rewind does not start: use code, conversation or both")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRewind(c.Context(), st, getenv, o, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Session, "session", "", "the session (default: the latest of this directory)")
	f.StringVar(&opts.To, "to", "", "the prompt to go back to: its number in the session, or its id")
	f.StringVar(&scope, "scope", string(host.ScopeCode), "what goes back: code, conversation or both")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show what would change; change nothing")
	f.BoolVar(&opts.Force, "force", false, "restore the files changed outside the agent since the checkpoint too")
	f.BoolVar(&opts.JSON, "json", false, "print the result as one JSON object")
	_ = c.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions(
		[]string{string(host.ScopeCode), string(host.ScopeConversation), string(host.ScopeBoth)}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runRewind(ctx context.Context, st Streams, getenv func(string) string, o *Options, opts *rewindOptions) error {
	h, err := openHost(ctx, o, getenv, false)
	if err != nil {
		return err
	}
	defer h.Close()
	id, err := sessionFor(ctx, h, o.Dir, opts.Session, "rewind")
	if err != nil {
		return err
	}
	res, err := h.Rewind(ctx, id, host.RewindRequest{To: opts.To, Scope: opts.Scope, DryRun: opts.DryRun, Force: opts.Force})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSONLine(st, newRewindJSON(res, opts.Scope, opts.DryRun))
	}
	return writeOut(st.Out, rewindSummary(id, opts.Scope, res, opts.DryRun))
}

// sessionFor is the id of the session a command acts on: id (a prefix
// will do), or the latest session of the working directory dir.
func sessionFor(ctx context.Context, h *host.Host, dir, id, verb string) (string, error) {
	store, err := h.Store(ctx)
	if err != nil {
		return "", err
	}
	if id != "" {
		sess, err := store.Get(ctx, id)
		if err != nil {
			return "", host.SessionError(err)
		}
		return sess.ID, nil
	}
	wd, err := workingDir(dir)
	if err != nil {
		return "", err
	}
	sess, err := store.Latest(ctx, wd)
	if err != nil {
		return "", usagef("no session in %s to %s: %w", wd, verb, err)
	}
	return sess.ID, nil
}

// rewindJSON is `agent rewind --json`'s object.
type rewindJSON struct {
	Checkpoint sessions.Checkpoint `json:"checkpoint"`
	Scope      string              `json:"scope"`
	// Changes are the files the rewind writes or removes (with --dry-run:
	// would), Kept those changed outside the agent it leaves (restored
	// with --force), Protected those it never writes.
	Changes   []checkpoint.Change `json:"changes"`
	Kept      []checkpoint.Change `json:"kept"`
	Protected []checkpoint.Change `json:"protected"`
	// Restored are the files written or removed.
	Restored []checkpoint.Change `json:"restored"`
	// Session is the session the conversation goes on in: the fork, for
	// the conversation scopes; the session itself for the code.
	Session string `json:"session"`
	DryRun  bool   `json:"dry_run"`
}

func newRewindJSON(res host.RewindResult, scope host.RewindScope, dryRun bool) rewindJSON {
	return rewindJSON{Checkpoint: res.Checkpoint, Scope: string(scope), Changes: orNone(res.Plan.Changes),
		Kept: orNone(res.Plan.Kept), Protected: orNone(res.Plan.Protected), Restored: orNone(res.Restored),
		Session: res.Session, DryRun: dryRun}
}

// orNone is list, or an empty one (JSON [] rather than null).
func orNone[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// writeJSONLine writes v as one line of JSON on stdout.
func writeJSONLine(st Streams, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeOut(st.Out, string(b)+"\n")
}
