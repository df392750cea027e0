package host

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agent-dev/agent/hooks"
)

// statusLineTimeout bounds one run of the status line command unless the
// config file's status_line sets its own timeout.
const statusLineTimeout = 5 * time.Second

// StatusLineInput is what the interface knows of the session for the
// status line command.
type StatusLineInput struct {
	SessionID string
	Model     string
	// CostUSD is the session's cost in US dollars (0 when unknown).
	CostUSD float64
	// InputTokens, OutputTokens and ContextTokens are the session's
	// tokens and the conversation's size as of the last request;
	// ContextWindow is the model's window (0: unknown).
	InputTokens, OutputTokens, ContextTokens, ContextWindow int
	// LastInput, LastOutput, LastCacheRead and LastCacheWrite are the
	// tokens of the last request (Claude Code's current_usage).
	LastInput, LastOutput, LastCacheRead, LastCacheWrite int
	// Duration is how long the interface has run; APIDuration the time
	// its turns spent (milliseconds in the JSON).
	Duration, APIDuration time.Duration
	// LinesAdded and LinesRemoved count the lines the session's edits
	// added and removed.
	LinesAdded, LinesRemoved int
}

// statusLineCommand is the session's status line command: the config
// file's status_line, else Claude Code's statusLine (the user's, or a
// trusted repository's); project is true for a repository's.
func (a *agent) statusLineCommand() (command string, padding int, timeout time.Duration, project bool) {
	if sl := a.settings.Interface.StatusLine; sl != nil {
		return sl.Command, sl.Padding, cmp.Or(sl.Timeout, statusLineTimeout), false
	}
	if sl := a.claude.statusLine; sl != nil {
		return sl.Command, max(sl.Padding, 0), statusLineTimeout, a.claude.statusLineProject
	}
	return "", 0, 0, false
}

// StatusLine reports the session's status line setting (status_line in
// the config file, else Claude Code's statusLine: the user's, or a
// trusted repository's): whether there is one, and its padding in
// columns.
func (s *Session) StatusLine() (ok bool, padding int) {
	command, padding, _, _ := s.a.statusLineCommand()
	return command != "", padding
}

// RunStatusLine runs the status line command as Claude Code does: with
// bash in the working directory (the person's own as the person, a
// trusted repository's in the sandbox, as its hooks), the session's state
// as Claude Code's JSON on standard input (session_id, cwd, model,
// workspace, version, cost, context_window, exceeds_200k_tokens; see
// statusLinePayload); its output's first line is the status line. It is
// bounded by the status line's timeout (default 5 s; the command's process
// group is killed then) and returns when ctx is cancelled; an error says
// why it gave no line.
func (s *Session) RunStatusLine(ctx context.Context, in StatusLineInput) (string, error) {
	command, _, timeout, project := s.a.statusLineCommand()
	if command == "" {
		return "", errors.New("no status line command is configured")
	}
	a := s.a
	stdin, err := json.Marshal(statusLinePayload(a.dir, in))
	if err != nil {
		return "", err
	}
	r := &hooks.Runner{Dir: a.dir, Env: a.settings.CommandEnviron(), Confine: hookConfine(a.sandbox, a.settings.Sandbox, nil)}
	out, err := r.Exec(ctx, hooks.Hook{Command: command, Timeout: timeout, Project: project}, stdin)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
	return line, nil
}

// statusLinePayload is Claude Code's status line JSON
// (https://code.claude.com/docs/en/statusline): what a script written for
// Claude Code reads, field by field. transcript_path is left out: agent
// keeps its sessions in a database, not a transcript file.
func statusLinePayload(dir string, in StatusLineInput) map[string]any {
	type model struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	}
	window := map[string]any{
		"total_input_tokens":  in.InputTokens,
		"total_output_tokens": in.OutputTokens,
		"context_window_size": in.ContextWindow,
		"current_usage": map[string]int{"input_tokens": in.LastInput, "output_tokens": in.LastOutput,
			"cache_creation_input_tokens": in.LastCacheWrite, "cache_read_input_tokens": in.LastCacheRead},
		"context_tokens": in.ContextTokens,
	}
	if in.ContextWindow > 0 {
		used := min(100, 100*in.ContextTokens/in.ContextWindow)
		window["used_percentage"], window["remaining_percentage"] = used, 100-used
	}
	return map[string]any{
		"hook_event_name": "Status",
		"session_id":      in.SessionID,
		"cwd":             dir,
		"model":           model{ID: in.Model, DisplayName: in.Model},
		"workspace":       map[string]string{"current_dir": dir, "project_dir": dir},
		"version":         Version(),
		"output_style":    map[string]string{"name": "default"},
		"cost": map[string]any{"total_cost_usd": in.CostUSD, "total_duration_ms": in.Duration.Milliseconds(),
			"total_api_duration_ms": in.APIDuration.Milliseconds(), "total_lines_added": in.LinesAdded, "total_lines_removed": in.LinesRemoved},
		"context_window":      window,
		"exceeds_200k_tokens": in.ContextTokens > 200_000,
	}
}
