package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agent-dev/agent/conversation"
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
	err := s.conn(ctx).QueryRowContext(ctx, `SELECT message_count FROM sessions WHERE id = ?`, id).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT id, seq, role, parts, input_tokens, output_tokens,
		cached_tokens, reasoning_tokens, cache_write_tokens, created_at FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq`, id, from)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	recs := make([]MessageRecord, 0, max(count-from+1, 0))
	ids := make([]int64, 0, max(count-from+1, 0))
	var parts []byte
	var raws [][]byte
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
		raws = append(raws, append([]byte(nil), parts...))
		r.CreatedAt = fromMillis(created)
		recs = append(recs, r)
		ids = append(ids, rowID)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close() // the images are loaded on the pool's connections
	load := s.imageLoader(ctx)
	for i := range recs {
		if recs[i].Message.Parts, err = unmarshalParts(raws[i], load); err != nil {
			return nil, nil, fmt.Errorf("message %d: %w", recs[i].Seq, err)
		}
	}
	return recs, ids, nil
}

// Messages returns the session's conversation for the next request, in
// order. The system prompt is not among them (it is Session.SystemPrompt).
//
// The history is repaired so that it is a request every provider accepts,
// whatever was stored (two processes interleaving their messages in one
// session, a process killed between two writes):
//
//   - Tool results are paired with their calls by call id, never by
//     position: each call is followed by its first stored result, wherever
//     that was stored; a second result for the same call, and a result
//     whose call is not in the history, are left out. A call whose id an
//     earlier call already used is left out too.
//   - A call without a stored result message gets one right after the
//     assistant message's results: the result the tool call record has if
//     the tool finished, else an error result saying CancelledResult for a
//     call of the last turn when the session's status is cancelled, and
//     InterruptedResult otherwise.
//   - Consecutive user messages, and consecutive assistant messages, are
//     merged into one (texts joined by a blank line; the thinking of an
//     assistant message merged into another is left out).
//   - A history that starts with something other than a user message
//     starts with a user message saying that earlier messages are missing.
//
// An unknown id is ErrNotFound. Messages are the whole history: the
// request history after a compaction is what Conversation returns.
func (s *Store) Messages(ctx context.Context, id string) ([]providers.Message, error) {
	msgs, _, err := s.messages(ctx, id, 1)
	if err != nil {
		return nil, fmt.Errorf("reading messages of session %s: %w", id, err)
	}
	return msgs, nil
}

// MissingStart is the text of the user message a repaired history starts
// with when its first stored message is not a user message.
const MissingStart = "(the first messages of this conversation are missing)"

// messages returns the session's messages from seq from on, repaired (see
// Messages), and each message's seq (0 for a supplied message; a merged
// message has its first part's seq).
func (s *Store) messages(ctx context.Context, id string, from int) ([]providers.Message, []int, error) {
	var status Status
	err := s.conn(ctx).QueryRowContext(ctx, `SELECT status FROM sessions WHERE id = ?`, id).Scan(&status)
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
	lookup := func(k callKey) (providers.ToolResult, bool, error) {
		if finished == nil {
			if finished, err = s.finishedCalls(ctx, id); err != nil {
				return providers.ToolResult{}, false, err
			}
		}
		rs := finished[k]
		if len(rs) == 0 {
			return providers.ToolResult{}, false, nil
		}
		finished[k] = rs[1:]
		return rs[0], true, nil
	}
	return repairHistory(recs, rowIDs, status, from == 1, lookup)
}

// repairHistory builds the request history from stored records (see
// Messages). rowIDs are the records' row ids; finished returns the result a
// finished tool call recorded, by the row id of its assistant message and
// its call id. atStart says the records begin at the session's first
// message.
func repairHistory(recs []MessageRecord, rowIDs []int64, status Status, atStart bool,
	finished func(callKey) (providers.ToolResult, bool, error)) ([]providers.Message, []int, error) {
	lastTurn, results := indexResults(recs)
	h := &history{}
	seen := map[string]bool{} // call ids already asked for
	for i, r := range recs {
		m := r.Message
		if m.Role == providers.RoleTool {
			continue // placed after its call, or left out
		}
		if m.Role != providers.RoleAssistant {
			h.add(m, r.Seq)
			continue
		}
		kept, calls := newCalls(m, seen)
		if len(kept.Parts) == 0 {
			continue
		}
		h.add(kept, r.Seq)
		answered, missing := pairResults(calls, results)
		for _, j := range answered {
			h.add(recs[j].Message, recs[j].Seq)
		}
		// The session's status tells how its last turn ended; a call of an
		// earlier turn left without a result was interrupted (the process
		// died).
		content := InterruptedResult
		if status == StatusCancelled && i >= lastTurn {
			content = CancelledResult
		}
		if err := h.addMissing(missing, rowIDs[i], content, finished); err != nil {
			return nil, nil, err
		}
	}
	if atStart && len(h.msgs) > 0 && h.msgs[0].Role != providers.RoleUser {
		h.msgs = append([]providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: MissingStart}}}}, h.msgs...)
		h.seqs = append([]int{0}, h.seqs...)
	}
	return h.msgs, h.seqs, nil
}

// indexResults finds in recs the index of the last user message, where the
// last turn began, and, by call id, the indices of the tool records that
// answer the call, in order.
func indexResults(recs []MessageRecord) (lastTurn int, results map[string][]int) {
	results = map[string][]int{}
	for i, r := range recs {
		switch r.Message.Role {
		case providers.RoleUser:
			lastTurn = i
		case providers.RoleTool:
			if res, ok := toolResult(r.Message); ok {
				results[res.CallID] = append(results[res.CallID], i)
			}
		}
	}
	return lastTurn, results
}

// newCalls is assistant message m without the tool calls whose ids seen
// holds, and the calls it keeps, which it adds to seen.
func newCalls(m providers.Message, seen map[string]bool) (kept providers.Message, calls []providers.ToolCall) {
	kept = providers.Message{Role: m.Role, Parts: make([]providers.Part, 0, len(m.Parts))}
	for _, p := range m.Parts {
		if c, ok := p.(providers.ToolCall); ok {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			calls = append(calls, c)
		}
		kept.Parts = append(kept.Parts, p)
	}
	return kept, calls
}

// pairResults takes from results (indices of tool records by call id) the
// first result of each of calls: answered holds their record indices in
// stored order, missing the calls without one. A second result of a call
// is left out.
func pairResults(calls []providers.ToolCall, results map[string][]int) (answered []int, missing []providers.ToolCall) {
	for _, c := range calls {
		if js := results[c.ID]; len(js) > 0 {
			answered = append(answered, js[0])
			results[c.ID] = nil // a second result is left out
			continue
		}
		missing = append(missing, c)
	}
	slices.Sort(answered)
	return answered, missing
}

// addMissing adds a result for each of calls, made by the assistant
// message of row rowID, that has no tool record: the one finished returns
// for it, else an error result saying content. It returns finished's error.
func (h *history) addMissing(calls []providers.ToolCall, rowID int64, content string,
	finished func(callKey) (providers.ToolResult, bool, error)) error {
	for _, c := range calls {
		res, ok, err := finished(callKey{rowID, c.ID})
		if err != nil {
			return err
		}
		if !ok {
			res = providers.ToolResult{Content: content, IsError: true}
		}
		res.CallID, res.Name = c.ID, c.Name
		h.add(providers.Message{Role: providers.RoleTool, Parts: []providers.Part{res}}, 0)
	}
	return nil
}

// toolResult returns the result a tool message holds.
func toolResult(m providers.Message) (providers.ToolResult, bool) {
	for _, p := range m.Parts {
		if r, ok := p.(providers.ToolResult); ok {
			return r, true
		}
	}
	return providers.ToolResult{}, false
}

// history is a request history being built; add merges a user or
// assistant message into the previous one of the same role.
type history struct {
	msgs []providers.Message
	seqs []int
}

func (h *history) add(m providers.Message, seq int) {
	n := len(h.msgs)
	if n == 0 || m.Role == providers.RoleTool || h.msgs[n-1].Role != m.Role {
		h.msgs = append(h.msgs, m)
		h.seqs = append(h.seqs, seq)
		return
	}
	h.msgs[n-1] = conversation.Merge(h.msgs[n-1], m)
	if h.seqs[n-1] == 0 {
		h.seqs[n-1] = seq
	}
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
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT message_id, call_id, name, result, is_error FROM tool_calls
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
	StartedAt  time.Time // zero until started
	FinishedAt time.Time // zero until finished
	// Duration is the run time in whole milliseconds, zero until finished;
	// from schema version 7 on, without ApprovalWait.
	Duration time.Duration
	// ApprovalWait is how long the approval took to decide (whole
	// milliseconds); zero when none was asked.
	ApprovalWait time.Duration
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
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT m.seq, t.call_id, t.name, t.arguments, t.status, t.result,
		t.is_error, t.started_at, t.finished_at, t.duration_ms, t.decision, t.approval_ms
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
		var started, finished, ms, wait sql.NullInt64
		if err := rows.Scan(&c.MessageSeq, &c.CallID, &c.Name, &c.Arguments, &c.Status, &result,
			&c.IsError, &started, &finished, &ms, &decision, &wait); err != nil {
			return nil, err
		}
		c.Result, c.Decision = result.String, decision.String
		c.StartedAt, c.FinishedAt = fromMillis(started), fromMillis(finished)
		c.Duration = time.Duration(ms.Int64) * time.Millisecond
		c.ApprovalWait = time.Duration(wait.Int64) * time.Millisecond
		calls = append(calls, c)
	}
	return calls, rows.Err()
}

// exists returns ErrNotFound when no session has the id.
func (s *Store) exists(ctx context.Context, id string) error {
	var one int
	err := s.conn(ctx).QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// imageLoader loads stored images by hash, each once per loader.
func (s *Store) imageLoader(ctx context.Context) imageLoader {
	seen := map[string][]byte{}
	return func(sha string) ([]byte, error) {
		if data, ok := seen[sha]; ok {
			return data, nil
		}
		var data []byte
		if err := s.conn(ctx).QueryRowContext(ctx, `SELECT data FROM images WHERE sha256 = ?`, sha).Scan(&data); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("not in the database")
			}
			return nil, err
		}
		seen[sha] = data
		return data, nil
	}
}
