package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agent-dev/agent/hooks"
)

// statusLineTimeout bounds one run of the status line command.
const statusLineTimeout = 5 * time.Second

// StatusLineInput is what the interface knows of the session for the
// status line command.
type StatusLineInput struct {
	SessionID string
	Model     string
	// CostUSD is the session's cost in US dollars (0 when unknown).
	CostUSD float64
	// InputTokens, OutputTokens and ContextTokens are the session's
	// tokens and the conversation's size as of the last request.
	InputTokens, OutputTokens, ContextTokens int
}

// StatusLine reports the session's status line setting (Claude Code's
// statusLine: the user's, or a trusted repository's): whether there is
// one, and its padding in columns.
func (s *Session) StatusLine() (ok bool, padding int) {
	sl := s.a.claude.statusLine
	if sl == nil {
		return false, 0
	}
	return true, max(sl.Padding, 0)
}

// RunStatusLine runs the status line command as Claude Code does: with
// bash in the working directory (the person's own as the person, a
// trusted repository's in the sandbox, as its hooks), the session's state as JSON on
// standard input (session_id, cwd, model, workspace, cost, ...); its
// output's first line is the status line. It is bounded by 5 s and
// returns when ctx is cancelled; an error says why it gave no line.
func (s *Session) RunStatusLine(ctx context.Context, in StatusLineInput) (string, error) {
	sl := s.a.claude.statusLine
	if sl == nil {
		return "", errors.New("no statusLine is configured")
	}
	a := s.a
	env := a.settings.CommandEnviron()
	type model struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	}
	payload := map[string]any{
		"hook_event_name": "Status",
		"session_id":      in.SessionID,
		"cwd":             a.dir,
		"model":           model{ID: in.Model, DisplayName: in.Model},
		"workspace":       map[string]string{"current_dir": a.dir, "project_dir": a.dir},
		"version":         Version(),
		"output_style":    map[string]string{"name": "default"},
		"cost":            map[string]any{"total_cost_usd": in.CostUSD},
		"context_window":  map[string]int{"total_input_tokens": in.InputTokens, "total_output_tokens": in.OutputTokens, "context_tokens": in.ContextTokens},
	}
	stdin, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	r := &hooks.Runner{Dir: a.dir, Env: env, Confine: hookConfine(a.sandbox, a.settings.Sandbox, nil)}
	out, err := r.Exec(ctx, hooks.Hook{Command: sl.Command, Timeout: statusLineTimeout, Project: a.claude.statusLineProject}, stdin)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
	return line, nil
}
