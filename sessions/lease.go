package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Holder names a process that may hold a session's lease: its process id,
// its start time as the kernel counts it (0 where unknown) and its
// machine's host name. The start time tells a process from a later one
// that reused its id.
type Holder struct {
	PID   int
	Start int64
	Host  string
}

var self = sync.OnceValue(func() Holder {
	host, _ := os.Hostname()
	pid := os.Getpid()
	start, _ := processStart(pid)
	return Holder{PID: pid, Start: start, Host: host}
})

// Self is this process as a lease holder.
func Self() Holder { return self() }

// Alive reports whether h may still be running: a process on another
// machine always may; on this one, a process with h's id must exist and,
// where the start time is known, have started at h.Start.
func (h Holder) Alive() bool {
	if h.PID <= 0 {
		return false
	}
	if h.Host != Self().Host {
		return true
	}
	start, ok := processStart(h.PID)
	if !ok {
		return false
	}
	return h.Start == 0 || start == 0 || start == h.Start
}

// LeaseError is Acquire's error when another live process holds the
// session.
type LeaseError struct {
	ID     string
	Holder Holder
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("session %s is in use by process %d", e.ID, e.Holder.PID)
}

// Acquire makes this process the session's one writer. It succeeds when
// nobody holds the lease, this process already does, or its holder has
// exited (judged on this machine by process id and start time, so that a
// session continues at once after a crash). Otherwise it returns a
// *LeaseError naming the holder. An unknown id is ErrNotFound.
func (s *Store) Acquire(ctx context.Context, id string) error {
	me := Self()
	var held *LeaseError
	err := s.write(ctx, func(tx *sql.Tx) error {
		var pid, start sql.NullInt64
		var host sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT holder_pid, holder_start, holder_host FROM sessions WHERE id = ?`, id).
			Scan(&pid, &start, &host)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		h := Holder{PID: int(pid.Int64), Start: start.Int64, Host: host.String}
		if pid.Valid && h != me && h.Alive() {
			held = &LeaseError{ID: id, Holder: h}
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET holder_pid = ?, holder_start = ?, holder_host = ?,
			holder_seq = CASE WHEN holder_pid IS ? AND holder_start IS ? AND holder_host IS ? THEN holder_seq ELSE message_count END
			WHERE id = ?`, me.PID, me.Start, me.Host, me.PID, me.Start, me.Host, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("taking the lease of session %s: %w", id, err)
	}
	if held != nil {
		return held
	}
	return nil
}

// Release gives up this process's lease on the session, if it holds it.
func (s *Store) Release(ctx context.Context, id string) error {
	me := Self()
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET holder_pid = NULL, holder_start = NULL, holder_host = NULL,
			holder_seq = NULL WHERE id = ? AND holder_pid = ? AND holder_start = ? AND holder_host = ?`, id, me.PID, me.Start, me.Host)
		return err
	})
	if err != nil {
		return fmt.Errorf("releasing the lease of session %s: %w", id, err)
	}
	return nil
}

// Fork creates a session that continues id's history: a copy of its
// messages, tool call records, compaction points, picked tools and usage,
// with forked_from set to id and its lease held by this process. When id's
// holder is running a turn, what it wrote since it took the lease is left
// out: that belongs to the process running it. The undo
// journal is not copied: the original session's turns stay its own.
// The fork is created and filled in one transaction, so that no other
// process (another --continue, which takes the latest session) ever finds
// it without its history.
func (s *Store) Fork(ctx context.Context, id string) (*Session, error) {
	return s.fork(ctx, id, 0)
}

// ForkAt creates a session whose history is id's before the message seq
// at (a prompt's: see Checkpoints), as Fork does, with forked_at set to
// at; the checkpoints of the prompts before at are copied with it, so the
// fork can rewind to them too. id keeps all of its history: the fork is a
// branch beside it. at must be at least 1.
func (s *Store) ForkAt(ctx context.Context, id string, at int) (*Session, error) {
	if at < 1 {
		return nil, fmt.Errorf("forking session %s at message %d: no such message", id, at)
	}
	return s.fork(ctx, id, at)
}

func (s *Store) fork(ctx context.Context, id string, at int) (*Session, error) {
	orig, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("forking session %s: %w", id, err)
	}
	n := NewSession{Dir: orig.Dir, Provider: orig.Provider, Model: orig.Model, SystemPrompt: orig.SystemPrompt, Title: orig.Title}
	now := s.now()
	var forkID string
	err = s.write(ctx, func(tx *sql.Tx) error {
		for range 5 {
			candidate, err := newID()
			if err != nil {
				return err
			}
			inserted, err := insertSession(ctx, tx, candidate, orig.Dir, n, now)
			if err != nil {
				return err
			}
			if inserted {
				forkID = candidate
				return copyHistory(ctx, tx, candidate, orig.ID, at)
			}
		}
		return errors.New("no unused id after 5 tries")
	})
	if err != nil {
		return nil, fmt.Errorf("forking session %s: %w", id, err)
	}
	return s.Get(ctx, forkID)
}

// copyHistory copies session from's history into the new session to, in
// tx (see Fork), the messages before seq at only when at > 0.
func copyHistory(ctx context.Context, tx *sql.Tx, to, from string, at int) error {
	// end is one past the last message copied.
	var status Status
	var end int
	var holderSeq sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT status, message_count + 1, holder_seq FROM sessions WHERE id = ?`, from).
		Scan(&status, &end, &holderSeq); err != nil {
		return err
	}
	if status == StatusRunning && holderSeq.Valid && int(holderSeq.Int64) < end {
		end = int(holderSeq.Int64) + 1
	}
	if at > 0 && at < end {
		end = at
	}
	if at > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET forked_at = ? WHERE id = ?`, at, to); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (session_id, seq, id, tree, end_tree, changed, skipped,
			undone, created_at) SELECT ?1, seq, id, tree, end_tree, changed, skipped, undone, created_at
			FROM checkpoints WHERE session_id = ?2 AND seq < ?3`, to, from, end); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoint_rewinds (session_id, after_seq, before_tree, after_tree,
			created_at) SELECT ?1, after_seq, before_tree, after_tree, created_at
			FROM checkpoint_rewinds WHERE session_id = ?2 AND after_seq < ?3 ORDER BY rowid`, to, from, end); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`UPDATE sessions SET (message_count, input_tokens, output_tokens, cached_tokens, reasoning_tokens,
			cache_write_tokens, picks, forked_from, holder_seq) = (SELECT ?3 - 1, input_tokens, output_tokens, cached_tokens,
			reasoning_tokens, cache_write_tokens, picks, id, ?3 - 1 FROM sessions WHERE id = ?2) WHERE id = ?1`,
		`INSERT INTO messages (session_id, seq, role, parts, input_tokens, output_tokens, cached_tokens,
			reasoning_tokens, cache_write_tokens, created_at)
			SELECT ?1, seq, role, parts, input_tokens, output_tokens, cached_tokens, reasoning_tokens,
			cache_write_tokens, created_at FROM messages WHERE session_id = ?2 AND seq < ?3 ORDER BY seq`,
		`INSERT INTO tool_calls (session_id, message_id, call_id, name, arguments, result, is_error, status,
			started_at, finished_at, duration_ms, decision)
			SELECT ?1, nm.id, t.call_id, t.name, t.arguments, t.result, t.is_error, t.status, t.started_at,
			t.finished_at, t.duration_ms, t.decision
			FROM tool_calls t JOIN messages om ON om.id = t.message_id
			JOIN messages nm ON nm.session_id = ?1 AND nm.seq = om.seq
			WHERE t.session_id = ?2 ORDER BY t.id`,
		`INSERT INTO compactions (session_id, first_seq, summary, before_tokens, after_tokens, created_at)
			SELECT ?1, first_seq, summary, before_tokens, after_tokens, created_at
			FROM compactions WHERE session_id = ?2 AND first_seq <= ?3 ORDER BY id`,
	} {
		if _, err := tx.ExecContext(ctx, q, to, from, end); err != nil {
			return err
		}
	}
	return nil
}

// sqlRunningSessions lists the sessions a process holds, through the
// sessions_running index (the status is a literal for SQLite to see that
// the index's condition holds).
const sqlRunningSessions = `SELECT id, holder_pid, holder_start, holder_host FROM sessions WHERE status = '` + string(StatusRunning) + `'`

// MarkInterrupted marks interrupted every running session whose lease
// holder has exited (or that no process holds), and frees its lease; it
// returns their ids. A process calls it when it starts, so that a session
// left running by a crash, a kill or a full disk says so.
func (s *Store) MarkInterrupted(ctx context.Context) ([]string, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, sqlRunningSessions)
	if err != nil {
		return nil, fmt.Errorf("finding interrupted sessions: %w", err)
	}
	type running struct {
		id string
		h  Holder
	}
	var gone []running
	for rows.Next() {
		var r running
		var pid, start sql.NullInt64
		var host sql.NullString
		if err := rows.Scan(&r.id, &pid, &start, &host); err != nil {
			rows.Close()
			return nil, fmt.Errorf("finding interrupted sessions: %w", err)
		}
		r.h = Holder{PID: int(pid.Int64), Start: start.Int64, Host: host.String}
		if !r.h.Alive() {
			gone = append(gone, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("finding interrupted sessions: %w", err)
	}
	var ids []string
	for _, r := range gone {
		// The holder is checked again in the update: a process may have
		// taken the session meanwhile.
		var n int64
		err := s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, holder_pid = NULL, holder_start = NULL,
				holder_host = NULL, holder_seq = NULL WHERE id = ? AND status = ? AND holder_pid IS ? AND holder_start IS ? AND holder_host IS ?`,
				StatusInterrupted, r.id, StatusRunning, nullInt(r.h.PID), nullInt(int(r.h.Start)), nullStr(r.h.Host))
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return ids, fmt.Errorf("marking session %s interrupted: %w", r.id, err)
		}
		if n == 1 {
			ids = append(ids, r.id)
		}
	}
	return ids, nil
}

func nullInt(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullStr(v string) any {
	if v == "" {
		return nil
	}
	return v
}
