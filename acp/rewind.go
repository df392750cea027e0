package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// The extension methods of agent's checkpoints (ACP's "_" namespace).
const (
	// MethodRewind goes back to the checkpoint of one of the session's
	// prompts: {sessionId, to, scope, dryRun?, force?} → RewindResult.
	MethodRewind = "_agent/rewind"
	// MethodCheckpoints lists the session's checkpoints: {sessionId} →
	// {checkpoints: [Checkpoint]}.
	MethodCheckpoints = "_agent/checkpoints"
)

// Rewinder is a Session that goes back to its prompts' checkpoints. A
// Session that is not one answers the extension methods with an error.
type Rewinder interface {
	// RewindTo rewinds the session as p says. A conversation scope leaves
	// the session as it is and makes a fork the client may session/load
	// (RewindResult.ForkedSessionID). An error the client can fix (an
	// unknown checkpoint or scope) is a ParamsError.
	RewindTo(ctx context.Context, p RewindParams) (RewindResult, error)
	// CheckpointList lists the session's checkpoints, oldest first.
	CheckpointList(ctx context.Context) ([]Checkpoint, error)
}

// ParamsError marks an error of a request's parameters: the answer is
// InvalidParams rather than InternalError.
type ParamsError struct{ Err error }

func (e ParamsError) Error() string { return e.Err.Error() }
func (e ParamsError) Unwrap() error { return e.Err }

// RewindParams are _agent/rewind's parameters.
type RewindParams struct {
	SessionID string `json:"sessionId"`
	// To names the checkpoint: a prompt's number in the session (a JSON
	// number or string) or its id.
	To RewindTarget `json:"to"`
	// Scope is code (the files), conversation (a fork before the prompt)
	// or both; empty is code.
	Scope  string `json:"scope,omitempty"`
	DryRun bool   `json:"dryRun,omitempty"`
	// Force restores the files changed outside the agent since the
	// checkpoint too.
	Force bool `json:"force,omitempty"`
}

// RewindTarget is a prompt's number or id, given as a JSON number or
// string.
type RewindTarget string

// UnmarshalJSON takes a number or a string.
func (t *RewindTarget) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*t = RewindTarget(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("to must be a prompt's number or id")
	}
	*t = RewindTarget(s)
	return nil
}

// RewindResult is _agent/rewind's answer, the JSON of `agent rewind
// --json` in ACP's camel case.
type RewindResult struct {
	Checkpoint Checkpoint `json:"checkpoint"`
	Scope      string     `json:"scope"`
	// Changes are the files the rewind writes or removes (with dryRun:
	// would), Kept those changed outside the agent it leaves (unless
	// force), Protected those it never writes; Restored those written or
	// removed.
	Changes   []FileChange `json:"changes"`
	Kept      []FileChange `json:"kept"`
	Protected []FileChange `json:"protected"`
	Restored  []FileChange `json:"restored"`
	// SessionID is the session rewound; ForkedSessionID the fork a
	// conversation scope made ("" otherwise), which session/load opens.
	SessionID       string `json:"sessionId"`
	ForkedSessionID string `json:"forkedSessionId,omitempty"`
	DryRun          bool   `json:"dryRun"`
}

// FileChange is one file of a rewind: what restoring does to it (create,
// modify, delete), and the lines it adds and removes.
type FileChange struct {
	Path    string `json:"path"`
	Action  string `json:"action"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitempty"`
}

// Checkpoint is the restore point of one prompt of a session.
type Checkpoint struct {
	// N is the prompt's number in the session, from 1; ID its id.
	N  int    `json:"n"`
	ID string `json:"id"`
	// Prompt is the first line of the prompt.
	Prompt string    `json:"prompt"`
	At     time.Time `json:"at"`
	// Changed are the files the prompt's turn changed.
	Changed []string `json:"changed"`
	Undone  bool     `json:"undone,omitempty"`
}

var _ sdk.ExtensionMethodHandler = (*server)(nil)

// HandleExtensionMethod answers the extension methods: _agent/rewind and
// _agent/checkpoints on a session the connection holds. A rewind while
// the session's prompt runs is refused.
func (s *server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case MethodRewind:
		var p RewindParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if strings.TrimSpace(string(p.To)) == "" {
			return nil, sdk.NewInvalidParams(map[string]any{"error": "to is required: a prompt's number or id"})
		}
		r, ls, err := s.rewinder(p.SessionID)
		if err != nil {
			return nil, err
		}
		if ls.running() {
			return nil, sdk.NewInvalidRequest(map[string]any{"error": "a prompt is running in session " + p.SessionID + ": cancel it first"})
		}
		res, err := r.RewindTo(ctx, p)
		if err != nil {
			return nil, requestError(err)
		}
		return res, nil
	case MethodCheckpoints:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		r, _, err := s.rewinder(p.SessionID)
		if err != nil {
			return nil, err
		}
		list, err := r.CheckpointList(ctx)
		if err != nil {
			return nil, requestError(err)
		}
		if list == nil {
			list = []Checkpoint{}
		}
		return map[string]any{"checkpoints": list}, nil
	}
	return nil, sdk.NewMethodNotFound(method)
}

// rewinder is the held session id as a Rewinder.
func (s *server) rewinder(id string) (Rewinder, *liveSession, error) {
	ls := s.get(id)
	if ls == nil {
		return nil, nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q: session/new or session/load it first", id)})
	}
	r, ok := ls.Session.(Rewinder)
	if !ok {
		return nil, nil, sdk.NewInvalidRequest(map[string]any{"error": "session " + id + " has no checkpoints"})
	}
	return r, ls, nil
}

// running reports whether a prompt of the session runs.
func (ls *liveSession) running() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.cancel != nil
}

// requestError is err as a JSON-RPC error: InvalidParams for a
// ParamsError, else InternalError.
func requestError(err error) *sdk.RequestError {
	var pe ParamsError
	if errors.As(err, &pe) {
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}
