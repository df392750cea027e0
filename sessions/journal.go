package sessions

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"time"
)

// FileJournal records, for one session, the files the agent's editing tools
// change, so that Store.Undo can put them back. A tool calls Before with
// the file's state just before it writes and After with what it wrote. Its
// method set is the journal interface of package tools/fs, which this
// package satisfies without importing it.
//
// A change belongs to the session's current turn: the seq of its latest
// user message when the call is made. Each call is one transaction,
// committed before it returns; calls may come from several goroutines.
type FileJournal struct {
	s  *Store
	id string
}

// Journal returns the file journal of the session with exactly this id.
// The id is checked by each call, which fails with ErrNotFound if the
// session does not exist (or was deleted).
func (s *Store) Journal(sessionID string) *FileJournal {
	return &FileJournal{s: s, id: sessionID}
}

// SessionID returns the id of the session j records.
func (j *FileJournal) SessionID() string { return j.id }

// Before saves the state of the file at name before a change: whether it
// existed and, if so, its content and mode (a zero mode means unknown: undo
// then keeps the file's mode as it is). Only the first Before for a path
// in a turn saves anything; later ones in the same turn are no-ops, so
// undo goes back to the state before the turn.
//
// name is relative to the working directory, with slashes or the OS's
// separators; it is stored cleaned and slash-separated. An absolute name or
// one that leaves the working directory is an error and nothing is saved.
func (j *FileJournal) Before(ctx context.Context, name string, existed bool, content []byte, mode fs.FileMode) error {
	p, err := journalPath(name)
	if err != nil {
		return fmt.Errorf("saving the state of %s before a change in session %s: %w", name, j.id, err)
	}
	var prior []byte // NULL in the database when the file did not exist
	if existed {
		prior = content
		if prior == nil {
			prior = []byte{}
		}
	}
	err = j.s.write(ctx, func(tx *sql.Tx) error {
		turn, err := currentTurn(ctx, tx, j.id)
		if err != nil {
			return err
		}
		// A row of this turn that was undone already is replaced: the file
		// is back at its state before the turn, and this is a new change.
		_, err = tx.ExecContext(ctx, `INSERT INTO file_snapshots
				(session_id, turn, path, existed, prior_content, prior_mode, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id, turn, path) DO UPDATE SET
				existed = excluded.existed, prior_content = excluded.prior_content,
				prior_mode = excluded.prior_mode, after_hash = NULL, undone = 0,
				created_at = excluded.created_at
			WHERE undone = 1`,
			j.id, turn, p, existed, prior, int64(mode), millis(j.s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("saving the state of %s before a change in session %s: %w", p, j.id, err)
	}
	return nil
}

// After records the content the file at name has after a change: its
// SHA-256, which Undo compares to tell whether the file changed outside the
// agent since. Every call records; the last one of a turn wins. After
// without a Before for the same path in the same turn is an error.
func (j *FileJournal) After(ctx context.Context, name string, content []byte) error {
	p, err := journalPath(name)
	if err != nil {
		return fmt.Errorf("recording a change of %s in session %s: %w", name, j.id, err)
	}
	sum := hashOf(content)
	err = j.s.write(ctx, func(tx *sql.Tx) error {
		turn, err := currentTurn(ctx, tx, j.id)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE file_snapshots SET after_hash = ?
			WHERE session_id = ? AND turn = ? AND path = ? AND undone = 0`, sum, j.id, turn, p)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("no state saved before the change in turn %d (After without Before)", turn)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording a change of %s in session %s: %w", p, j.id, err)
	}
	return nil
}

// currentTurn returns the seq of the session's latest user message (0
// before the first), or ErrNotFound when the session does not exist.
func currentTurn(ctx context.Context, q queryer, id string) (int, error) {
	var turn int
	err := q.QueryRowContext(ctx, `SELECT (SELECT COALESCE(MAX(seq), 0) FROM messages
		WHERE session_id = ?1 AND role = 'user') FROM sessions WHERE id = ?1`, id).Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return turn, err
}

// journalPath returns name in its stored form: cleaned, slash-separated,
// relative to the working directory.
func journalPath(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty path")
	}
	p := path.Clean(filepath.ToSlash(name))
	if !filepath.IsLocal(filepath.FromSlash(p)) || p == "." {
		return "", fmt.Errorf("path %q is not a file inside the working directory", name)
	}
	return p, nil
}

// hashOf is the stored form of a content hash: SHA-256, lowercase hex.
func hashOf(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// FileChange is a file the agent changed in a turn, as FileChanges lists
// it.
type FileChange struct {
	Turn    int    // seq of the user message that started the turn
	Path    string // slash-separated, relative to the working directory
	Existed bool   // false when the turn created the file
	Undone  bool
	// CreatedAt is when the turn first changed the file.
	CreatedAt time.Time
}

// FileChanges lists the file changes recorded for the session, in turn
// order and by path within a turn. An unknown id is ErrNotFound.
func (s *Store) FileChanges(ctx context.Context, sessionID string) ([]FileChange, error) {
	list, err := s.fileChanges(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing file changes of session %s: %w", sessionID, err)
	}
	return list, nil
}

func (s *Store) fileChanges(ctx context.Context, id string) ([]FileChange, error) {
	if _, err := currentTurn(ctx, s.conn(ctx), id); err != nil {
		return nil, err
	}
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT turn, path, existed, undone, created_at
		FROM file_snapshots WHERE session_id = ? ORDER BY turn, path`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []FileChange
	for rows.Next() {
		var c FileChange
		var created sql.NullInt64
		if err := rows.Scan(&c.Turn, &c.Path, &c.Existed, &c.Undone, &created); err != nil {
			return nil, err
		}
		c.CreatedAt = fromMillis(created)
		list = append(list, c)
	}
	return list, rows.Err()
}
