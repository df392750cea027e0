package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

var _ conversation.Recorder = (*Recorder)(nil)

// Conversation loads the session's conversation as the next request
// carries it: the system prompt; after the latest compaction, the summary
// and the messages from its first kept one on (never what was compacted),
// else every message, with results supplied for unanswered calls as
// Messages does; the picked tools; the session's usage. An unknown id is
// ErrNotFound.
func (s *Store) Conversation(ctx context.Context, id string) (conversation.State, error) {
	st, err := s.conversation(ctx, id)
	if err != nil {
		return conversation.State{}, fmt.Errorf("reading the conversation of session %s: %w", id, err)
	}
	return st, nil
}

func (s *Store) conversation(ctx context.Context, id string) (conversation.State, error) {
	var st conversation.State
	var picks string
	err := s.conn(ctx).QueryRowContext(ctx, `SELECT system_prompt, picks, message_count, input_tokens, output_tokens,
		cached_tokens, reasoning_tokens, cache_write_tokens FROM sessions WHERE id = ?`, id).Scan(&st.System, &picks, &st.NextSeq,
		&st.Usage.InputTokens, &st.Usage.OutputTokens, &st.Usage.CachedInputTokens, &st.Usage.ReasoningTokens,
		&st.Usage.CacheWriteTokens)
	if errors.Is(err, sql.ErrNoRows) {
		return st, ErrNotFound
	}
	if err != nil {
		return st, err
	}
	st.NextSeq++
	if err := json.Unmarshal([]byte(picks), &st.Picked); err != nil {
		return st, fmt.Errorf("picked tools: %w", err)
	}
	from := 1
	var summary sql.NullString
	err = s.conn(ctx).QueryRowContext(ctx, `SELECT first_seq, summary, (SELECT COUNT(*) FROM compactions WHERE session_id = ?1)
		FROM compactions WHERE session_id = ?1 ORDER BY id DESC LIMIT 1`, id).Scan(&from, &summary, &st.Compactions)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, err
	}
	msgs, seqs, err := s.messages(ctx, id, from)
	if err != nil {
		return st, err
	}
	if summary.Valid {
		msgs = append([]providers.Message{conversation.SummaryMessage(summary.String)}, msgs...)
		seqs = append([]int{0}, seqs...)
	}
	st.Messages, st.Seqs = msgs, seqs
	return st, nil
}

// SavePicks records the session's picked tools (the whole set).
func (r *Recorder) SavePicks(ctx context.Context, picked []string) error {
	if picked == nil {
		picked = []string{}
	}
	data, err := json.Marshal(picked)
	if err != nil {
		return fmt.Errorf("recording picked tools in session %s: %w", r.id, err)
	}
	now := millis(r.s.now())
	if !r.due(now) { // the updated time as the recorder keeps it (touchEvery)
		return r.s.updateSession(ctx, "recording picked tools in session", r.id,
			`UPDATE sessions SET picks = ? WHERE id = ?`, string(data), r.id)
	}
	err = r.s.updateSession(ctx, "recording picked tools in session", r.id,
		`UPDATE sessions SET picks = ?, updated_at = ? WHERE id = ?`, string(data), now, r.id)
	if err == nil {
		r.stamped(now, true)
	}
	return err
}

// SaveCompaction records a compaction point of the session and adds the
// summary request's usage to the session's totals. The messages before it
// stay stored: show and export still have them.
func (r *Recorder) SaveCompaction(ctx context.Context, c conversation.Compaction) error {
	err := r.s.write(ctx, func(tx *sql.Tx) error {
		if err := r.addUsage(ctx, tx, c.Usage); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO compactions
			(session_id, first_seq, summary, before_tokens, after_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			r.id, c.FirstSeq, c.Summary, c.BeforeTokens, c.AfterTokens, millis(r.s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("recording a compaction of session %s: %w", r.id, err)
	}
	return nil
}

// RecordUsage adds usage that no message carries to the session's totals.
func (r *Recorder) RecordUsage(ctx context.Context, u providers.Usage) error {
	if err := r.s.write(ctx, func(tx *sql.Tx) error { return r.addUsage(ctx, tx, u) }); err != nil {
		return fmt.Errorf("recording usage in session %s: %w", r.id, err)
	}
	return nil
}

// addUsage adds u to the session's totals and bumps its updated time.
func (r *Recorder) addUsage(ctx context.Context, tx *sql.Tx, u providers.Usage) error {
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?,
			input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, cached_tokens = cached_tokens + ?,
			reasoning_tokens = reasoning_tokens + ?, cache_write_tokens = cache_write_tokens + ?
		WHERE id = ?`, millis(r.s.now()), u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens,
		u.CacheWriteTokens, r.id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// CompactionRecord is a stored compaction point.
type CompactionRecord struct {
	conversation.Compaction
	CreatedAt time.Time
}

// Compactions returns the session's compaction points, oldest first. An
// unknown id is ErrNotFound.
func (s *Store) Compactions(ctx context.Context, id string) ([]CompactionRecord, error) {
	out, err := s.compactions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading compactions of session %s: %w", id, err)
	}
	return out, nil
}

func (s *Store) compactions(ctx context.Context, id string) ([]CompactionRecord, error) {
	if err := s.exists(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT first_seq, summary, before_tokens, after_tokens, created_at
		FROM compactions WHERE session_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CompactionRecord
	for rows.Next() {
		var c CompactionRecord
		var created sql.NullInt64
		if err := rows.Scan(&c.FirstSeq, &c.Summary, &c.BeforeTokens, &c.AfterTokens, &created); err != nil {
			return nil, err
		}
		c.CreatedAt = fromMillis(created)
		out = append(out, c)
	}
	return out, rows.Err()
}
