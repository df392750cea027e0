package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tui"
)

// tuiRewinder is the interface's /rewind and /undo: the host's rewinds of
// the session the interface shows. The conversation the host opened (and
// the forks rewinds made of it) rewinds through the host's Session, which
// goes on in the fork and can summarize with its model; a session the
// interface switched to since (/new, /sessions) through the Host, which
// has no model to summarize with.
type tuiRewinder struct {
	h    *host.Host
	sess *host.Session
	ss   *tui.StoreSessions
}

var _ tui.Rewinder = (*tuiRewinder)(nil)

// Checkpoints lists session id's checkpoints (its last turn's end
// recorded).
func (r *tuiRewinder) Checkpoints(ctx context.Context, id string) ([]sessions.Checkpoint, error) {
	return r.h.Checkpoints(ctx, id)
}

// Rewind rewinds the interface's session; a fork it makes is opened as
// the interface's next session.
func (r *tuiRewinder) Rewind(ctx context.Context, ts *tui.Session, req tui.RewindRequest) (tui.Rewound, error) {
	hreq := host.RewindRequest{To: strconv.Itoa(req.To), Scope: hostScope(req.Scope), DryRun: req.Preview, Force: req.Force}
	id := ts.ID
	own := ts.Conv == r.sess.Conversation()
	var res host.RewindResult
	var err error
	switch {
	case own:
		res, err = r.sess.Rewind(ctx, hreq)
	case req.Scope == tui.RewindSummarize:
		return tui.Rewound{}, errors.New("summarizing from a prompt works in the conversation this run started with " +
			"(and those rewound from it), not in one opened since: rewind the conversation instead")
	default:
		res, err = r.h.Rewind(ctx, id, hreq)
	}
	out := rewound(res)
	if err != nil || req.Preview || res.Session == "" || res.Session == id {
		return out, err
	}
	out.Left = id
	if own {
		out.Session, err = r.ss.Adopt(ctx, res.Session, r.sess.Conversation(), true) // deleted at exit if left empty
	} else {
		out.Session, err = r.ss.Open(ctx, res.Session)
	}
	if err != nil {
		return out, fmt.Errorf("opening the rewound conversation, session %s: %w", res.Session, err)
	}
	return out, nil
}

// Undo is Host.Undo, leaving the files changed outside the agent alone.
func (r *tuiRewinder) Undo(ctx context.Context, id string) (tui.Rewound, *sessions.UndoResult, error) {
	res, journal, err := r.h.Undo(ctx, id, false)
	out := rewound(res)
	switch {
	case err != nil:
	case journal != nil:
		var files []string
		for _, f := range journal.Restored {
			files = append(files, f.Path)
		}
		r.sess.NoteNextPrompt(id, undoNote(journal.Prompt, files))
	default:
		var files []string
		for _, f := range out.Restored {
			files = append(files, f.Path)
		}
		r.sess.NoteNextPrompt(id, undoNote(out.Prompt, files))
	}
	return out, journal, err
}

// undoNote tells the model that the person undid a prompt's file changes:
// what it remembers writing is no longer in the files.
func undoNote(prompt int, files []string) string {
	return fmt.Sprintf("<system-reminder>The person ran /undo: the file changes of their prompt %d are undone, and these files are as they were before it: %s. "+
		"Read a file again before relying on what you wrote to it.</system-reminder>", prompt, strings.Join(files, ", "))
}

// hostScope is the host's name of a scope.
func hostScope(sc tui.RewindScope) host.RewindScope {
	switch sc {
	case tui.RewindConversation:
		return host.ScopeConversation
	case tui.RewindCode:
		return host.ScopeCode
	case tui.RewindSummarize:
		return host.ScopeSummarize
	}
	return host.ScopeBoth
}

// rewound is a rewind's result as the interface shows it (but its fork).
func rewound(res host.RewindResult) tui.Rewound {
	return tui.Rewound{
		Prompt: res.Checkpoint.N, Text: res.Prompt,
		Changes: fileChanges(res.Plan.Changes), Kept: fileChanges(res.Plan.Kept), Protected: fileChanges(res.Plan.Protected),
		Restored: fileChanges(res.Restored),
	}
}

func fileChanges(cs []checkpoint.Change) []tui.FileChange {
	if len(cs) == 0 {
		return nil
	}
	out := make([]tui.FileChange, len(cs))
	for i, c := range cs {
		out[i] = tui.FileChange{Path: c.Path, Action: string(c.Action), Added: c.Added, Removed: c.Removed, Binary: c.Binary}
	}
	return out
}
