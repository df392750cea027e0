package cmd

import (
	"context"
	"errors"

	"github.com/agent-dev/agent/acp"
	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

var _ acp.Rewinder = (*acpSession)(nil)

// RewindTo rewinds the ACP session: the code through the session's own
// checkpoints, the conversation into a fork the session does not switch
// to (the client may session/load it).
func (s *acpSession) RewindTo(ctx context.Context, p acp.RewindParams) (acp.RewindResult, error) {
	name := p.Scope
	if name == "" {
		name = string(host.ScopeCode)
	}
	scope, err := host.ParseRewindScope(name)
	if err == nil && scope == host.ScopeSummarize {
		err = errors.New("scope summarize is not offered over ACP: use code, conversation or both")
	}
	if err != nil {
		return acp.RewindResult{}, acp.ParamsError{Err: err}
	}
	id := s.ID()
	res, err := s.Rewind(ctx, host.RewindRequest{To: string(p.To), Scope: scope, DryRun: p.DryRun, Force: p.Force, Stay: true})
	if err != nil {
		var ue host.UsageError
		if errors.As(err, &ue) {
			return acp.RewindResult{}, acp.ParamsError{Err: err}
		}
		return acp.RewindResult{}, err
	}
	out := acp.RewindResult{Checkpoint: acpCheckpoint(res.Checkpoint), Scope: string(scope), Changes: acpChanges(res.Plan.Changes),
		Kept: acpChanges(res.Plan.Kept), Protected: acpChanges(res.Plan.Protected), Restored: acpChanges(res.Restored),
		SessionID: id, DryRun: p.DryRun}
	if res.Session != id {
		out.ForkedSessionID = res.Session
	}
	return out, nil
}

// CheckpointList lists the session's checkpoints.
func (s *acpSession) CheckpointList(ctx context.Context) ([]acp.Checkpoint, error) {
	list, err := s.Checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]acp.Checkpoint, len(list))
	for i, cp := range list {
		out[i] = acpCheckpoint(cp)
	}
	return out, nil
}

func acpCheckpoint(cp sessions.Checkpoint) acp.Checkpoint {
	return acp.Checkpoint{N: cp.N, ID: cp.ID, Prompt: cp.Prompt, At: cp.At, Changed: orNone(cp.Changed), Undone: cp.Undone}
}

func acpChanges(list []checkpoint.Change) []acp.FileChange {
	out := make([]acp.FileChange, len(list))
	for i, c := range list {
		out[i] = acp.FileChange{Path: c.Path, Action: string(c.Action), Added: c.Added, Removed: c.Removed, Binary: c.Binary}
	}
	return out
}
