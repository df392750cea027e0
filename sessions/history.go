package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/agent-dev/agent/providers"
)

// The contents of the results Messages supplies for tool calls that never
// got one.
const (
	CancelledResult   = "cancelled by the user"
	InterruptedResult = "interrupted"
)

// MessageRecord is a stored message as written, with its place and usage.
type MessageRecord struct {
	Seq       int // 1 for the first message of the session
	Message   providers.Message
	Usage     providers.Usage // the response's usage for an assistant message; zero for others
	CreatedAt time.Time
}

// MessageRecords returns the session's stored messages in order, exactly as
// recorded: for showing and exporting a conversation. An unknown id is
// ErrNotFound.
func (s *Store) MessageRecords(ctx context.Context, id string) ([]MessageRecord, error) {
	recs, _, err := s.messageRecords(ctx, id, 1)
	if err != nil {
		return nil, fmt.Errorf("reading messages of session %s: %w", id, err)
	}
	return recs, nil
}

// messageRecords returns the messages from seq from on, and each message's
// row id in the same order.
func (s *Store) messageRecords(ctx context.Context, id string, from int) ([]MessageRecord, []int64, error) {
	var count int
	err := s.db.QueryRowContext(ctx, `SELECT message_count FROM sessions WHERE id = ?`, id).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, seq, role, parts, input_tokens, output_tokens,
		cached_tokens, reasoning_tokens, cache_write_tokens, created_at FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq`, id, from)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	recs := make([]MessageRecord, 0, max(count-from+1, 0))
	ids := make([]int64, 0, max(count-from+1, 0))
	var parts []byte
	for rows.Next() {
		var r MessageRecord
		var rowID int64
		var role string
		var created sql.NullInt64
		if err := rows.Scan(&rowID, &r.Seq, &role, &parts, &r.Usage.InputTokens, &r.Usage.OutputTokens,
			&r.Usage.CachedInputTokens, &r.Usage.ReasoningTokens, &r.Usage.CacheWriteTokens, &created); err != nil {
			return nil, nil, err
		}
		r.Message.Role = providers.Role(role)
		if r.Message.Parts, err = UnmarshalParts(parts); err != nil {
			return nil, nil, fmt.Errorf("message %d: %w", r.Seq, err)
		}
		r.CreatedAt = fromMillis(created)
		recs = append(recs, r)
		ids = append(ids, rowID)
	}
	return recs, ids, rows.Err()
}

// Messages returns the session's conversation for the next request, in
// order. The system prompt is not among them (it is Session.SystemPrompt).
//
// Every tool call gets a result message: a call whose result message was
// never stored (the process died or the turn was cancelled) gets one right
// after the assistant message's stored results. It holds the result the
// tool call record has if the tool finished, else an error result saying
// CancelledResult for a call of the last turn when the session's status is
// cancelled, and InterruptedResult otherwise. So the history is a valid request for every
// provider. An unknown id is ErrNotFound.
//
// Messages are the whole history: the request history after a compaction is
// what Conversation returns.
func (s *Store) Messages(ctx context.Context, id string) ([]providers.Message, error) {
	msgs, _, err := s.messages(ctx, id, 1)
	if err != nil {
		return nil, fmt.Errorf("reading messages of session %s: %w", id, err)
	}
	return msgs, nil
}

// messages returns the session's messages from seq from on, with the
// results supplied for unanswered calls (see Messages), and each message's
// seq (0 for a supplied result).
func (s *Store) messages(ctx context.Context, id string, from int) ([]providers.Message, []int, error) {
	var status Status
	err := s.db.QueryRowContext(ctx, `SELECT status FROM sessions WHERE id = ?`, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	recs, rowIDs, err := s.messageRecords(ctx, id, from)
	if err != nil {
		return nil, nil, err
	}
	var finished map[callKey][]providers.ToolResult // loaded when first needed
	// The session's status tells how its last turn ended; a call of an
	// earlier turn left without a result was interrupted (the process died).
	lastTurn := 0
	for i, r := range recs {
		if r.Message.Role == providers.RoleUser {
			lastTurn = i
		}
	}

	out := make([]providers.Message, 0, len(recs))
	seqs := make([]int, 0, len(recs))
	for i := 0; i < len(recs); i++ {
		m := recs[i].Message
		out = append(out, m)
		seqs = append(seqs, recs[i].Seq)
		calls := m.ToolCalls()
		if m.Role != providers.RoleAssistant || len(calls) == 0 {
			continue
		}
		asked := rowIDs[i]
		// The results of this message are the tool messages after it.
		answered := map[string]int{}
		for i+1 < len(recs) && recs[i+1].Message.Role == providers.RoleTool {
			i++
			out = append(out, recs[i].Message)
			seqs = append(seqs, recs[i].Seq)
			for _, p := range recs[i].Message.Parts {
				if r, ok := p.(providers.ToolResult); ok {
					answered[r.CallID]++
				}
			}
		}
		missing := providers.ToolResult{Content: InterruptedResult, IsError: true}
		if status == StatusCancelled && i >= lastTurn {
			missing.Content = CancelledResult
		}
		for _, c := range calls {
			if answered[c.ID] > 0 {
				answered[c.ID]--
				continue
			}
			if finished == nil {
				if finished, err = s.finishedCalls(ctx, id); err != nil {
					return nil, nil, err
				}
			}
			res := missing
			res.CallID, res.Name = c.ID, c.Name
			k := callKey{asked, c.ID}
			if rs := finished[k]; len(rs) > 0 {
				res, finished[k] = rs[0], rs[1:]
			}
			out = append(out, providers.Message{Role: providers.RoleTool, Parts: []providers.Part{res}})
			seqs = append(seqs, 0)
		}
	}
	return out, seqs, nil
}

// callKey names a tool call: the row id of the assistant message that asked
// for it and its call id.
type callKey struct {
	message int64
	callID  string
}

// finishedCalls returns the results of the session's finished tool calls,
// in call order per key.
func (s *Store) finishedCalls(ctx context.Context, id string) (map[callKey][]providers.ToolResult, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT message_id, call_id, name, result, is_error FROM tool_calls
		WHERE session_id = ? AND status IN ('completed', 'failed') ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[callKey][]providers.ToolResult{}
	for rows.Next() {
		var k callKey
		var r providers.ToolResult
		var content sql.NullString
		if err := rows.Scan(&k.message, &k.callID, &r.Name, &content, &r.IsError); err != nil {
			return nil, err
		}
		r.CallID, r.Content = k.callID, content.String
		m[k] = append(m[k], r)
	}
	return m, rows.Err()
}

// ToolStatus is where a tool call stands.
type ToolStatus string

// The statuses of a tool call: recorded with its assistant message
// (pending), started (executing), finished with a result (completed) or an
// error result (failed). A call left pending or executing was interrupted.
const (
	ToolPending   ToolStatus = "pending"
	ToolExecuting ToolStatus = "executing"
	ToolCompleted ToolStatus = "completed"
	ToolFailed    ToolStatus = "failed"
)

// ToolCallRecord is a stored tool call.
type ToolCallRecord struct {
	SessionID string
	// MessageSeq is the Seq of the assistant message that asked for it.
	MessageSeq int
	CallID     string
	Name       string
	Arguments  string // the model's raw text, possibly invalid JSON
	Status     ToolStatus
	Result     string // empty until finished
	IsError    bool
	StartedAt  time.Time     // zero until started
	FinishedAt time.Time     // zero until finished
	Duration   time.Duration // whole milliseconds; zero until finished
	// Decision is the approval decision, "allowed" or "denied" and who or
	// what decided (`allowed: rule: allow "git status"`, see
	// Recorder.DecideToolCall); empty when the call needed none (a read-only tool) or was
	// recorded before decisions were.
	Decision string
}

// ToolCalls returns every tool call of the session in the order they were
// asked for. An unknown id is ErrNotFound.
func (s *Store) ToolCalls(ctx context.Context, id string) ([]ToolCallRecord, error) {
	calls, err := s.toolCalls(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading tool calls of session %s: %w", id, err)
	}
	return calls, nil
}

func (s *Store) toolCalls(ctx context.Context, id string) ([]ToolCallRecord, error) {
	if err := s.exists(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT m.seq, t.call_id, t.name, t.arguments, t.status, t.result,
		t.is_error, t.started_at, t.finished_at, t.duration_ms, t.decision
		FROM tool_calls t JOIN messages m ON m.id = t.message_id
		WHERE t.session_id = ? ORDER BY t.id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var calls []ToolCallRecord
	for rows.Next() {
		c := ToolCallRecord{SessionID: id}
		var result, decision sql.NullString
		var started, finished, ms sql.NullInt64
		if err := rows.Scan(&c.MessageSeq, &c.CallID, &c.Name, &c.Arguments, &c.Status, &result,
			&c.IsError, &started, &finished, &ms, &decision); err != nil {
			return nil, err
		}
		c.Result, c.Decision = result.String, decision.String
		c.StartedAt, c.FinishedAt = fromMillis(started), fromMillis(finished)
		c.Duration = time.Duration(ms.Int64) * time.Millisecond
		calls = append(calls, c)
	}
	return calls, rows.Err()
}

// exists returns ErrNotFound when no session has the id.
func (s *Store) exists(ctx context.Context, id string) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
