package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/sessions"
)

// RewindScope is what a rewind restores.
type RewindScope string

// The scopes of a rewind.
const (
	// ScopeCode restores the working directory's files to the checkpoint;
	// the conversation goes on.
	ScopeCode RewindScope = "code"
	// ScopeConversation forks the session before the prompt: the fork
	// goes on from there, the session keeps every message (a branch
	// beside the fork). The files stay as they are.
	ScopeConversation RewindScope = "conversation"
	// ScopeBoth does both.
	ScopeBoth RewindScope = "both"
	// ScopeSummarize forks the session at the prompt with a summary of
	// the conversation that followed in place of its messages; the files
	// stay. It needs the session's model: Session.Rewind only.
	ScopeSummarize RewindScope = "summarize"
)

// ParseRewindScope reads a scope's name; an unknown name is a UsageError.
func ParseRewindScope(name string) (RewindScope, error) {
	switch sc := RewindScope(name); sc {
	case ScopeCode, ScopeConversation, ScopeBoth, ScopeSummarize:
		return sc, nil
	}
	return "", usagef("unknown rewind scope %q: use code, conversation, both or summarize", name)
}

func (sc RewindScope) code() bool         { return sc == ScopeCode || sc == ScopeBoth }
func (sc RewindScope) conversation() bool { return sc != ScopeCode }

// RewindRequest asks for a rewind.
type RewindRequest struct {
	// To names the checkpoint: a prompt's number in the session ("3") or
	// its id (a uuid, or a prefix of at least 8 characters).
	To    string
	Scope RewindScope
	// DryRun plans and changes nothing: the result's Plan is the preview.
	DryRun bool
	// Force restores the files changed outside the agent since the
	// checkpoint too (the result's Plan.Kept); without it they are left
	// as they are.
	Force bool
	// Stay, for Session.Rewind, keeps the session going on as it is when
	// the conversation is rewound: the fork is made and its lease
	// released, for another front-end (or a later session/load) to open.
	Stay bool
}

// RewindResult is what a rewind did (or, with DryRun, would do).
type RewindResult struct {
	// Checkpoint is the checkpoint rewound to.
	Checkpoint sessions.Checkpoint
	// Plan is the code's restore: the files it writes or removes, those
	// changed outside the agent it keeps (unless forced), and the
	// protected ones it never writes. Empty for the conversation scope.
	Plan checkpoint.Plan
	// Restored are the files written or removed (none for a dry run).
	Restored []checkpoint.Change
	// Before is the tree of the files as they were before the rewind,
	// kept in the session's checkpoints ("" for a dry run or the
	// conversation scope).
	Before string
	// Session is the session the conversation goes on in: a fork when the
	// conversation was rewound, else the session itself.
	Session string
	// Prompt is the full text of the prompt rewound to, for a front-end to
	// offer again.
	Prompt string
}

// Rewind rewinds session id, stored (it need not be open; its lease is not
// taken), to a checkpoint: the headless `agent rewind`, ACP's and the
// SDK's rewinds of a session they do not hold. The summarize scope needs a
// model: it is a UsageError here. An unknown session or checkpoint is a
// UsageError; without checkpoints in the session, ErrNoCheckpoint.
func (h *Host) Rewind(ctx context.Context, id string, req RewindRequest) (RewindResult, error) {
	if req.Scope == ScopeSummarize {
		return RewindResult{}, usagef("summarizing needs the session's model: rewind with --scope summarize in the interface")
	}
	store, err := h.Store(ctx)
	if err != nil {
		return RewindResult{}, err
	}
	rec, err := store.Get(ctx, id)
	if err != nil {
		return RewindResult{}, SessionError(err)
	}
	var cs *checkpoint.Store
	if req.Scope.code() || !req.DryRun {
		// A conversation rewind needs the store only to keep the fork's
		// earlier checkpoints: without it the fork is still made.
		if cs, err = h.openCheckpoints(ctx, rec.Dir); err != nil && req.Scope.code() {
			return RewindResult{}, err
		}
	}
	return rewind(ctx, store, cs, h.rewindPaths(rec.Dir), rec.ID, req)
}

// openCheckpoints opens the checkpoint store of dir's project.
func (h *Host) openCheckpoints(ctx context.Context, dir string) (*checkpoint.Store, error) {
	if h.dataDir == "" {
		return nil, usagef("no checkpoints: the sessions are not stored on disk")
	}
	store, err := h.Store(ctx)
	if err != nil {
		return nil, err
	}
	return checkpoint.Open(ctx, checkpointsRoot(store), dir, checkpoint.Options{MaxFileBytes: h.settings.Checkpoints.MaxFileBytes,
		Exclude: h.protectedPaths(dir).ReadDenied})
}

// rewindPaths says which paths of dir a rewind never writes: the
// protected ones.
func (h *Host) rewindPaths(dir string) func(string) bool {
	return protectedFn(h.protectedPaths(dir))
}

// rewind is Rewind on the stored session id with the checkpoint store of
// its directory (nil when the code is not rewound).
func rewind(ctx context.Context, store *sessions.Store, cs *checkpoint.Store, protected func(string) bool, id string, req RewindRequest) (RewindResult, error) {
	cp, list, err := store.FindCheckpoint(ctx, id, req.To)
	if errors.Is(err, sessions.ErrNoCheckpoint) {
		return RewindResult{}, UsageError{Err: err}
	}
	if err != nil {
		return RewindResult{}, err
	}
	res := RewindResult{Checkpoint: cp, Session: id}
	if res.Prompt, err = promptText(ctx, store, id, cp.Seq); err != nil {
		return res, err
	}
	if req.Scope.code() {
		if err := rewindCode(ctx, store, cs, protected, id, cp, list, req, &res); err != nil {
			return res, err
		}
	}
	if req.Scope.conversation() && !req.DryRun {
		fork, err := store.ForkAt(ctx, id, cp.Seq)
		if err != nil {
			return res, err
		}
		res.Session = fork.ID
		// The fork runs nothing yet: not "running" (which the next start
		// would take for a crash), and the directory's latest session,
		// which agent -c goes on with.
		if err := store.SetStatus(ctx, fork.ID, sessions.StatusCompleted); err != nil {
			return res, err
		}
		if cs != nil {
			if err := keepEarlier(ctx, cs, fork.ID, list, cp); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// rewindCode restores the files of cp (or plans it, for a dry run).
func rewindCode(ctx context.Context, store *sessions.Store, cs *checkpoint.Store, protected func(string) bool, id string, cp sessions.Checkpoint,
	list []sessions.Checkpoint, req RewindRequest, res *RewindResult) error {
	name := "preview"
	if !req.DryRun {
		name = "rewind-" + time.Now().UTC().Format("20060102T150405.000000000")
		name = sanitizeRef(name)
	}
	now, err := cs.Take(ctx, id, name)
	if err != nil {
		return err
	}
	outside, err := changedOutside(ctx, cs, list, cp, now.Tree)
	if err != nil {
		return err
	}
	if res.Plan, err = cs.PlanRestore(ctx, now.Tree, cp.Tree, outside, protected); err != nil {
		return err
	}
	if req.DryRun {
		return nil
	}
	res.Before = now.Tree
	root, err := os.OpenRoot(cs.Dir())
	if err != nil {
		return fmt.Errorf("rewinding the files of %s: %w", cs.Dir(), err)
	}
	defer root.Close()
	applied, err := cs.Apply(ctx, root, res.Plan, req.Force)
	res.Restored = applied.Changes
	if err != nil {
		return fmt.Errorf("rewinding the files to prompt %d (the files as they were before are checkpoint tree %s): %w", cp.N, now.Tree, err)
	}
	after, err := cs.Take(ctx, id, name+"-after")
	if err != nil {
		return err
	}
	return store.SaveRewind(ctx, id, sessions.Rewind{Before: now.Tree, After: after.Tree})
}

// changedOutside lists the files changed outside the agent since cp: those
// that differ across a gap between what the agent did (its turns, and the
// rewinds between them): from a turn's end or a rewind's result to the
// next rewind or prompt, and from the last of them to now. A rewind that
// overwrote such a file (the person forced it) settles it. Turns whose
// end was not seen count as the agent's.
func changedOutside(ctx context.Context, cs *checkpoint.Store, list []sessions.Checkpoint, cp sessions.Checkpoint, now string) ([]string, error) {
	set := map[string]bool{}
	diff := func(from, to string, mark bool) error {
		if from == "" || from == to {
			return nil
		}
		paths, err := cs.Changed(ctx, from, to)
		for _, p := range paths {
			if mark {
				set[p] = true
			} else {
				delete(set, p)
			}
		}
		return err
	}
	for i := cp.N - 1; i < len(list); i++ {
		from := list[i].EndTree
		for _, r := range list[i].Rewinds {
			if err := diff(from, r.Before, true); err != nil {
				return nil, err
			}
			if err := diff(r.Before, r.After, false); err != nil {
				return nil, err
			}
			from = r.After
		}
		next := now
		if i+1 < len(list) {
			next = list[i+1].Tree
		}
		if err := diff(from, next, true); err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// keepEarlier keeps the checkpoints a fork copied (those before cp) under
// the fork's refs, so they outlive the session they were taken in.
func keepEarlier(ctx context.Context, cs *checkpoint.Store, fork string, list []sessions.Checkpoint, cp sessions.Checkpoint) error {
	var names, trees []string
	for _, c := range list[:cp.N-1] {
		// Named by seq: prompts' ids may repeat, a ref may be updated
		// once.
		names, trees = append(names, fmt.Sprintf("start-%d", c.Seq)), append(trees, c.Tree)
		if c.EndTree != "" {
			names, trees = append(names, fmt.Sprintf("end-%d", c.Seq)), append(trees, c.EndTree)
		}
	}
	return cs.Keep(ctx, fork, names, trees)
}

// promptText is the text of session id's user message at seq.
func promptText(ctx context.Context, store *sessions.Store, id string, seq int) (string, error) {
	recs, err := store.MessageRecords(ctx, id)
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if r.Seq == seq {
			return r.Message.Text(), nil
		}
	}
	return "", nil
}

// sanitizeRef keeps the characters a checkpoint's ref name may have, and
// its first 64 bytes.
func sanitizeRef(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "prompt"
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}
