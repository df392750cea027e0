package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/providers"
)

// nullString is s, or SQL NULL when s is empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Children returns the subagents' sessions that session id's task calls
// started (NewSession.Parent), oldest first. An id with no children gives
// an empty list, whether or not it exists.
func (s *Store) Children(ctx context.Context, id string) ([]Summary, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("listing the subagents of session %s: %w", id, err)
	}
	defer rows.Close()
	var list []Summary
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing the subagents of session %s: %w", id, err)
		}
		list = append(list, ss.Summary)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the subagents of session %s: %w", id, err)
	}
	return list, nil
}

// SubagentUsage returns the usage of every session session id's subagents
// recorded, their own subagents' included: what the session's work cost
// beyond its own Usage.
func (s *Store) SubagentUsage(ctx context.Context, id string) (providers.Usage, error) {
	var u providers.Usage
	byModel, err := s.SubagentUsageByModel(ctx, id)
	for _, m := range byModel {
		u = u.Add(m)
	}
	return u, err
}

// SubagentUsageByModel is SubagentUsage by the model each subagent ran on,
// so that each is priced at its own model's price.
func (s *Store) SubagentUsageByModel(ctx context.Context, id string) (map[string]providers.Usage, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, `WITH RECURSIVE sub(id) AS (
			SELECT id FROM sessions WHERE parent_id = ?
			UNION SELECT s.id FROM sessions s JOIN sub ON s.parent_id = sub.id)
		SELECT model, coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cached_tokens), 0),
			coalesce(sum(reasoning_tokens), 0), coalesce(sum(cache_write_tokens), 0)
		FROM sessions WHERE id IN (SELECT id FROM sub) GROUP BY model`, id)
	if err != nil {
		return nil, fmt.Errorf("reading the subagents' usage of session %s: %w", id, err)
	}
	defer rows.Close()
	out := map[string]providers.Usage{}
	for rows.Next() {
		var model string
		var u providers.Usage
		if err := rows.Scan(&model, &u.InputTokens, &u.OutputTokens, &u.CachedInputTokens, &u.ReasoningTokens, &u.CacheWriteTokens); err != nil {
			return nil, fmt.Errorf("reading the subagents' usage of session %s: %w", id, err)
		}
		out[model] = u
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the subagents' usage of session %s: %w", id, err)
	}
	return out, nil
}

// Todo is one item of a session's todo list (the todo_write tool's).
type Todo struct {
	Content string `json:"content"`
	// Status is "pending", "in_progress" or "completed".
	Status string `json:"status"`
}

// SaveTodos replaces session id's todo list. An unknown id is ErrNotFound.
func (s *Store) SaveTodos(ctx context.Context, id string, todos []Todo) error {
	if todos == nil {
		todos = []Todo{}
	}
	data, err := json.Marshal(todos)
	if err != nil {
		return fmt.Errorf("saving the todo list of session %s: %w", id, err)
	}
	return s.updateSession(ctx, "saving the todo list of session", id, `UPDATE sessions SET todos = ? WHERE id = ?`, string(data), id)
}

// Todos returns session id's todo list (empty when it has none). An
// unknown id is ErrNotFound.
func (s *Store) Todos(ctx context.Context, id string) ([]Todo, error) {
	var data string
	err := s.conn(ctx).QueryRowContext(ctx, `SELECT todos FROM sessions WHERE id = ?`, id).Scan(&data)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("reading the todo list of session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the todo list of session %s: %w", id, err)
	}
	var todos []Todo
	if err := json.Unmarshal([]byte(data), &todos); err != nil {
		return nil, fmt.Errorf("reading the todo list of session %s: %w", id, err)
	}
	return todos, nil
}
