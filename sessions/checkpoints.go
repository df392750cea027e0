package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrNoCheckpoint: the session has no checkpoint of that prompt (a wrong
// number or id, or the prompt was sent before checkpoints were taken).
var ErrNoCheckpoint = errors.New("no such checkpoint")

// Checkpoint is the restore point of one prompt of a session: the state
// of its working directory's files as the prompt was submitted, kept in
// the project's checkpoint store (package checkpoint).
type Checkpoint struct {
	// N is the prompt's number in the session, from 1.
	N int `json:"n"`
	// Seq is the seq of the prompt's user message.
	Seq int `json:"seq"`
	// ID is the prompt's id, a uuid (the Claude Agent SDK's user message
	// uuid when the SDK sent the prompt).
	ID string `json:"id"`
	// Tree is the checkpoint's git tree; EndTree the tree when the turn
	// ended ("" when its end was not seen: a crash, a turn still running).
	Tree    string `json:"tree"`
	EndTree string `json:"end_tree,omitempty"`
	// Changed are the files the turn changed (slash paths relative to the
	// working directory, sorted), whoever changed them.
	Changed []string `json:"changed"`
	// Skipped are the files the checkpoint left out.
	Skipped []SkippedFile `json:"skipped,omitempty"`
	// Undone is set once undo restored the code to this checkpoint.
	Undone bool `json:"undone,omitempty"`
	// Rewinds are the rewinds of the files after this prompt's turn and
	// before the next prompt, oldest first.
	Rewinds []Rewind `json:"rewinds,omitempty"`
	// Prompt is the first line of the prompt's text.
	Prompt string `json:"prompt"`
	// At is when the checkpoint was taken.
	At time.Time `json:"at"`
}

// Rewind is a rewind of the files between two turns: the trees before
// and after it.
type Rewind struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// SaveRewind records a rewind of session id's files between its turns,
// after the turn of its latest checkpoint.
func (s *Store) SaveRewind(ctx context.Context, id string, r Rewind) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO checkpoint_rewinds (session_id, after_seq, before_tree, after_tree, created_at)
			VALUES (?1, coalesce((SELECT max(seq) FROM checkpoints WHERE session_id = ?1), 0), ?2, ?3, ?4)`,
			id, r.Before, r.After, millis(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("saving a rewind of session %s: %w", id, err)
	}
	return nil
}

// SkippedFile is a file a checkpoint left out, and why.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// NewCheckpoint is a checkpoint taken as a prompt was submitted.
type NewCheckpoint struct {
	ID      string
	Tree    string
	Skipped []SkippedFile
	// Seq is the seq of the prompt's message, as NextSeq read it when the
	// prompt was submitted; 0 is the next message's at the save.
	Seq int
}

// NextSeq returns the seq the next message of session id will have: the
// seq a checkpoint taken now belongs to. An unknown session is
// ErrNotFound.
func (s *Store) NextSeq(ctx context.Context, id string) (int, error) {
	var seq int
	if err := s.conn(ctx).QueryRowContext(ctx, `SELECT message_count + 1 FROM sessions WHERE id = ?`, id).Scan(&seq); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = ErrNotFound
		}
		return 0, fmt.Errorf("reading session %s: %w", id, err)
	}
	return seq, nil
}

// SaveCheckpoint records the checkpoint of the prompt of session id at
// cp.Seq, or, when that is 0, of the prompt about to be sent: the next
// message's seq. It returns the seq (a row already there, left by a prompt
// that was blocked before it was sent, is replaced). An unknown session is
// ErrNotFound.
func (s *Store) SaveCheckpoint(ctx context.Context, id string, cp NewCheckpoint) (int, error) {
	skipped, err := json.Marshal(orEmpty(cp.Skipped))
	if err != nil {
		return 0, err
	}
	seq := cp.Seq
	err = s.write(ctx, func(tx *sql.Tx) error {
		var next int
		if err := tx.QueryRowContext(ctx, `SELECT message_count + 1 FROM sessions WHERE id = ?`, id).Scan(&next); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			return err
		}
		if seq <= 0 {
			seq = next
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO checkpoints (session_id, seq, id, tree, skipped, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, id, seq, cp.ID, cp.Tree, string(skipped), millis(s.now()))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("saving a checkpoint of session %s: %w", id, err)
	}
	return seq, nil
}

// EndCheckpoint records the tree as the turn of the prompt at seq ended,
// and the files the turn changed.
func (s *Store) EndCheckpoint(ctx context.Context, id string, seq int, tree string, changed []string) error {
	list, err := json.Marshal(orEmpty(changed))
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE checkpoints SET end_tree = ?, changed = ? WHERE session_id = ? AND seq = ?`,
			tree, string(list), id, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("saving a checkpoint of session %s: %w", id, err)
	}
	return nil
}

// SetCheckpointUndone marks the checkpoint at seq undone (undo restored
// the code to it) or not.
func (s *Store) SetCheckpointUndone(ctx context.Context, id string, seq int, undone bool) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE checkpoints SET undone = ? WHERE session_id = ? AND seq = ?`, undone, id, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("saving a checkpoint of session %s: %w", id, err)
	}
	return nil
}

// Checkpoints lists the checkpoints of session id's prompts, oldest first,
// numbered from 1: those whose prompt was recorded (a prompt blocked
// before it was sent has none). An unknown session is ErrNotFound.
func (s *Store) Checkpoints(ctx context.Context, id string) ([]Checkpoint, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT c.seq, c.id, c.tree, coalesce(c.end_tree, ''), c.changed, c.skipped,
		c.undone, c.created_at, coalesce((SELECT p.value ->> '$.text' FROM json_each(m.parts) AS p
			WHERE p.value ->> '$.type' = 'text' LIMIT 1), '')
		FROM checkpoints AS c JOIN messages AS m ON m.session_id = c.session_id AND m.seq = c.seq AND m.role = 'user'
		WHERE c.session_id = ? ORDER BY c.seq`, id)
	if err != nil {
		return nil, fmt.Errorf("listing the checkpoints of session %s: %w", id, err)
	}
	defer rows.Close()
	var list []Checkpoint
	for rows.Next() {
		var cp Checkpoint
		var changed, skipped string
		var at sql.NullInt64
		if err := rows.Scan(&cp.Seq, &cp.ID, &cp.Tree, &cp.EndTree, &changed, &skipped, &cp.Undone, &at, &cp.Prompt); err != nil {
			return nil, fmt.Errorf("listing the checkpoints of session %s: %w", id, err)
		}
		json.Unmarshal([]byte(changed), &cp.Changed)
		json.Unmarshal([]byte(skipped), &cp.Skipped)
		cp.Prompt, _, _ = strings.Cut(strings.TrimSpace(cp.Prompt), "\n")
		cp.At = fromMillis(at)
		cp.N = len(list) + 1
		list = append(list, cp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the checkpoints of session %s: %w", id, err)
	}
	rows.Close()
	if err := s.addRewinds(ctx, id, list); err != nil {
		return nil, fmt.Errorf("listing the checkpoints of session %s: %w", id, err)
	}
	return list, nil
}

// addRewinds fills in the rewinds after each checkpoint of list.
func (s *Store) addRewinds(ctx context.Context, id string, list []Checkpoint) error {
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT after_seq, before_tree, after_tree FROM checkpoint_rewinds
		WHERE session_id = ? ORDER BY after_seq, rowid`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var r Rewind
		if err := rows.Scan(&seq, &r.Before, &r.After); err != nil {
			return err
		}
		for i := len(list) - 1; i >= 0; i-- { // the last prompt at or before seq
			if list[i].Seq <= seq {
				list[i].Rewinds = append(list[i].Rewinds, r)
				break
			}
		}
	}
	return rows.Err()
}

// FindCheckpoint returns the checkpoint of session id that ref names: a
// prompt number ("3"), or a prompt's id (a uuid, or a unique prefix of at
// least 8 characters). It fails with ErrNoCheckpoint when none does.
func (s *Store) FindCheckpoint(ctx context.Context, id, ref string) (Checkpoint, []Checkpoint, error) {
	list, err := s.Checkpoints(ctx, id)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	ref = strings.TrimSpace(ref)
	if n, err := strconv.Atoi(ref); err == nil {
		if n >= 1 && n <= len(list) {
			return list[n-1], list, nil
		}
		return Checkpoint{}, list, fmt.Errorf("prompt %d of session %s (it has %d): %w", n, id, len(list), ErrNoCheckpoint)
	}
	var found []Checkpoint
	for _, cp := range list {
		if cp.ID == ref || (len(ref) >= 8 && strings.HasPrefix(cp.ID, ref)) {
			found = append(found, cp)
		}
	}
	if len(found) != 1 {
		return Checkpoint{}, list, fmt.Errorf("prompt %q of session %s: %w", ref, id, ErrNoCheckpoint)
	}
	return found[0], list, nil
}

// Branches lists the sessions forked from session id (Fork, ForkAt),
// oldest first.
func (s *Store) Branches(ctx context.Context, id string) ([]Summary, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE forked_from = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("listing the branches of session %s: %w", id, err)
	}
	defer rows.Close()
	var list []Summary
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing the branches of session %s: %w", id, err)
		}
		list = append(list, ss.Summary)
	}
	return list, rows.Err()
}

// orEmpty is list, or an empty list for nil (JSON [] rather than null).
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
