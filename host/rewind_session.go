package host

import (
	"context"
	"errors"
	"os"
	"strconv"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/protect"
)

// Checkpoints lists the session's checkpoints, oldest first (none when
// checkpoints are off).
func (s *Session) Checkpoints(ctx context.Context) ([]sessions.Checkpoint, error) {
	return s.h.Checkpoints(ctx, s.ID())
}

// Checkpoints lists session id's checkpoints, oldest first.
func (h *Host) Checkpoints(ctx context.Context, id string) ([]sessions.Checkpoint, error) {
	store, err := h.Store(ctx)
	if err != nil {
		return nil, err
	}
	return store.Checkpoints(ctx, id)
}

// Rewind rewinds the session to one of its checkpoints (see RewindScope).
// When the conversation is rewound the session goes on in the fork: ID,
// Conversation and the next turns are the fork's from then on, and the
// result's Session names it. The summarize scope asks the session's model
// for the summary (see summarizeFrom). With req.Stay (the conversation and
// both scopes) the session stays as it is and the fork is left for others
// to open. Checkpoints off is a UsageError.
func (s *Session) Rewind(ctx context.Context, req RewindRequest) (RewindResult, error) {
	if s.a.checkpoints == nil && req.Scope.code() {
		return RewindResult{}, usagef("checkpoints are off in this session ([checkpoints] enabled, or git missing)")
	}
	if req.Scope == ScopeSummarize {
		return s.summarizeFrom(ctx, req)
	}
	var cs *checkpoint.Store
	if s.a.checkpoints != nil {
		cs = s.a.checkpoints.store
	}
	res, err := rewind(ctx, s.store, cs, protectedFn(s.a.protect.Paths()), s.id, req)
	if err != nil || res.Session == s.id {
		return res, err
	}
	if req.Stay {
		return res, s.store.Release(context.WithoutCancel(ctx), res.Session)
	}
	return res, s.switchTo(ctx, res.Session)
}

// switchTo makes the session go on in session id (a fork it made, whose
// lease this process holds): its conversation, its loop's recorder, its
// lease released at Close; the session left is released now.
func (s *Session) switchTo(ctx context.Context, id string) error {
	st, err := s.store.Conversation(ctx, id)
	if err != nil {
		return err
	}
	conv := conversation.Restore(st, s.store.Recorder(id))
	s.mu.Lock()
	model := s.model
	s.mu.Unlock()
	l, err := s.a.newLoop(model, s.store.Recorder(id))
	if err != nil {
		return err
	}
	old := s.id
	s.mu.Lock()
	s.id, s.conv, s.loop = id, conv, l
	s.mu.Unlock()
	s.store.Release(context.WithoutCancel(ctx), old)
	s.release(ctx)
	return nil
}

// Undo restores the files to the checkpoint of the latest prompt whose
// turn changed files and that undo has not restored yet, and marks it
// restored: repeated undos walk back prompt by prompt. Files changed
// outside the agent since are kept unless force; a prompt whose undo kept
// files is not marked, so the next undo (with force) comes back to it. A
// session without checkpoints (taken before they existed, or with them
// off) undoes its last turn's edit tool changes from the undo journal
// instead: sessions.Store.Undo, whose result and errors it returns as they
// are.
func (h *Host) Undo(ctx context.Context, id string, force bool) (RewindResult, *sessions.UndoResult, error) {
	store, err := h.Store(ctx)
	if err != nil {
		return RewindResult{}, nil, err
	}
	rec, err := store.Get(ctx, id)
	if err != nil {
		return RewindResult{}, nil, SessionError(err)
	}
	list, err := store.Checkpoints(ctx, rec.ID)
	if err != nil {
		return RewindResult{}, nil, err
	}
	if len(list) == 0 {
		root, err := os.OpenRoot(rec.Dir)
		if err != nil {
			return RewindResult{}, nil, err
		}
		defer root.Close()
		res, err := store.Undo(ctx, root, rec.ID)
		if err != nil {
			return RewindResult{}, nil, err
		}
		return RewindResult{}, &res, nil
	}
	target := -1
	for i := len(list) - 1; i >= 0; i-- {
		if !list[i].Undone && (len(list[i].Changed) > 0 || list[i].EndTree == "") {
			target = i
			break
		}
	}
	if target < 0 {
		return RewindResult{}, nil, sessions.ErrNothingToUndo
	}
	cs, err := h.openCheckpoints(ctx, rec.Dir)
	if err != nil {
		return RewindResult{}, nil, err
	}
	res, err := rewind(ctx, store, cs, h.rewindPaths(rec.Dir), rec.ID,
		RewindRequest{To: strconv.Itoa(list[target].N), Scope: ScopeCode, Force: force})
	if err != nil {
		return res, nil, err
	}
	if len(res.Plan.Kept) > 0 && !force {
		// Not undone yet: the next undo (--force) comes back to it.
		return res, nil, nil
	}
	if err := store.SetCheckpointUndone(ctx, rec.ID, list[target].Seq, true); err != nil {
		return res, nil, err
	}
	return res, nil, nil
}

// summarizeFrom is Rewind's summarize scope: the model summarizes the
// conversation from the checkpoint's prompt on, and the session goes on
// in a fork made before that prompt with the summary as its last
// message. A prompt that a compaction already summarized cannot be.
func (s *Session) summarizeFrom(ctx context.Context, req RewindRequest) (RewindResult, error) {
	cp, list, err := s.store.FindCheckpoint(ctx, s.id, req.To)
	if errors.Is(err, sessions.ErrNoCheckpoint) {
		return RewindResult{}, UsageError{Err: err}
	}
	if err != nil {
		return RewindResult{}, err
	}
	res := RewindResult{Checkpoint: cp, Session: s.id}
	if res.Prompt, err = promptText(ctx, s.store, s.id, cp.Seq); err != nil {
		return res, err
	}
	idx := s.conv.IndexOf(cp.Seq)
	if idx < 0 {
		return res, usagef("prompt %d is in the part of the conversation a compaction summarized already: rewind the conversation instead", cp.N)
	}
	if req.DryRun {
		return res, nil
	}
	s.mu.Lock()
	l := s.loop
	s.mu.Unlock()
	summary, err := l.SummarizeFrom(ctx, s.conv, idx)
	if err != nil {
		return res, err
	}
	fork, err := s.store.ForkAt(ctx, s.id, cp.Seq)
	if err != nil {
		return res, err
	}
	res.Session = fork.ID
	if s.a.checkpoints != nil {
		if err := keepEarlier(ctx, s.a.checkpoints.store, fork.ID, list, cp); err != nil {
			return res, err
		}
	}
	if err := s.switchTo(ctx, fork.ID); err != nil {
		return res, err
	}
	return res, s.conv.Append(ctx, providers.UserText(loop.SummaryFromPrefix+summary), providers.Usage{})
}

// protectedFn says whether a rewind may never write a path: a protected
// one.
func protectedFn(paths protect.Paths) func(string) bool {
	return func(rel string) bool { return paths.WriteRisk(rel) != "" }
}
