package sessions

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/providers"
)

// Status is where a session's last turn ended.
type Status string

// The statuses of a session. A new session is running.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
	// StatusInterrupted marks a session left running by a process that is
	// gone (killed, or its disk filled); see Store.MarkInterrupted.
	StatusInterrupted Status = "interrupted"
	// StatusBudget marks a session whose last turn stopped at a spend cap
	// before a final answer (loop.StopBudget).
	StatusBudget Status = "max_budget"
)

func (s Status) valid() bool {
	switch s {
	case StatusRunning, StatusCompleted, StatusFailed, StatusCancelled, StatusInterrupted, StatusBudget:
		return true
	}
	return false
}

// NewSession is what Create needs. Dir is the working directory (made
// absolute and cleaned); Provider names the endpoint (a base URL's host is
// enough, never a key); SystemPrompt is sent once at the head of every
// request of the session.
type NewSession struct {
	Dir          string
	Provider     string
	Model        string
	SystemPrompt string
	Title        string
	// Parent, ParentCallID and Agent make the session a subagent's: the
	// session whose tool call ParentCallID started it, and the defined
	// agent it runs as ("" for the default). Empty for a person's session.
	Parent       string
	ParentCallID string
	Agent        string
	// ForkedFrom is the session this one's history was copied from ("" for
	// none) and ForkedAt the seq of the first message it left out (0: it
	// copied the whole history).
	ForkedFrom string
	ForkedAt   int
}

// Summary is a session as List shows it.
type Summary struct {
	ID        string
	Title     string
	Dir       string
	Provider  string
	Model     string
	Status    Status
	CreatedAt time.Time
	UpdatedAt time.Time
	// Messages counts the stored messages (user, assistant and tool).
	Messages int
	// Usage is the sum of the usage of every recorded response of this
	// session alone (its subagents' are in SubagentUsage).
	Usage providers.Usage
	// Parent is the id of the session whose task call ParentCallID
	// started this one, as Agent; empty for a top-level session.
	Parent       string
	ParentCallID string
	Agent        string
	// ForkedFrom is the session this one's history was copied from ("" for
	// none) and ForkedAt the seq of the first message it left out (0: it
	// copied the whole history).
	ForkedFrom string
	ForkedAt   int
}

// Session is a session's record: its summary and its system prompt.
type Session struct {
	Summary
	SystemPrompt string
}

// idLen is the length of a session id: lowercase hex of 6 random bytes.
const idLen = 12

// MinPrefix is the shortest id prefix Get resolves.
const MinPrefix = 4

// Create starts a session with status running, its lease held by this
// process (see Acquire).
func (s *Store) Create(ctx context.Context, n NewSession) (*Session, error) {
	dir, err := cleanDir(n.Dir)
	if err != nil {
		return nil, fmt.Errorf("creating session: %w", err)
	}
	now := s.now()
	for range 5 {
		id, err := newID()
		if err != nil {
			return nil, fmt.Errorf("creating session: %w", err)
		}
		var inserted bool
		err = s.write(ctx, func(tx *sql.Tx) error {
			inserted, err = insertSession(ctx, tx, id, dir, n, now)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("creating session: %w", err)
		}
		if inserted {
			// The row's updated time is now: the session's first
			// records need not write it again (touchEvery).
			s.Recorder(id).stamped(millis(now), true)
			return newSessionRecord(id, dir, n, now), nil
		}
	}
	return nil, errors.New("creating session: no unused id after 5 tries")
}

// insertSession inserts a running session held by this process in tx; it
// reports false when id is taken.
func insertSession(ctx context.Context, tx *sql.Tx, id, dir string, n NewSession, now time.Time) (bool, error) {
	me := Self()
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions
		(id, title, dir, provider, model, system_prompt, status, created_at, updated_at, holder_pid, holder_start, holder_host, holder_seq,
		 parent_id, parent_call_id, agent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, n.Title, dir, n.Provider, n.Model, n.SystemPrompt, StatusRunning, millis(now), millis(now), me.PID, me.Start, me.Host,
		nullString(n.Parent), n.ParentCallID, n.Agent)
	if err != nil {
		return false, err
	}
	inserted, err := res.RowsAffected()
	return inserted == 1, err
}

func newSessionRecord(id, dir string, n NewSession, now time.Time) *Session {
	return &Session{
		Summary: Summary{
			ID: id, Title: n.Title, Dir: dir, Provider: n.Provider, Model: n.Model,
			Status: StatusRunning, CreatedAt: time.UnixMilli(millis(now)), UpdatedAt: time.UnixMilli(millis(now)),
			Parent: n.Parent, ParentCallID: n.ParentCallID, Agent: n.Agent,
		},
		SystemPrompt: n.SystemPrompt,
	}
}

func newID() (string, error) {
	var b [idLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func cleanDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no working directory given")
	}
	return filepath.Abs(dir)
}

const sessionColumns = `id, title, dir, provider, model, status, created_at, updated_at,
	message_count, input_tokens, output_tokens, cached_tokens, reasoning_tokens, system_prompt, cache_write_tokens,
	coalesce(parent_id, ''), parent_call_id, agent, coalesce(forked_from, ''), coalesce(forked_at, 0)`

func scanSession(sc interface{ Scan(...any) error }) (*Session, error) {
	var ss Session
	var created, updated sql.NullInt64
	err := sc.Scan(&ss.ID, &ss.Title, &ss.Dir, &ss.Provider, &ss.Model, &ss.Status, &created, &updated,
		&ss.Messages, &ss.Usage.InputTokens, &ss.Usage.OutputTokens, &ss.Usage.CachedInputTokens,
		&ss.Usage.ReasoningTokens, &ss.SystemPrompt, &ss.Usage.CacheWriteTokens, &ss.Parent, &ss.ParentCallID, &ss.Agent,
		&ss.ForkedFrom, &ss.ForkedAt)
	if err != nil {
		return nil, err
	}
	ss.CreatedAt, ss.UpdatedAt = fromMillis(created), fromMillis(updated)
	return &ss, nil
}

// Get returns the session whose id is id or, when no id equals it, the one
// session whose id starts with it (at least MinPrefix characters, like git).
// It fails with ErrNotFound when none matches and ErrAmbiguous when several
// do.
func (s *Store) Get(ctx context.Context, id string) (*Session, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	ss, err := scanSession(s.conn(ctx).QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err == nil {
		return ss, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	if utf8.RuneCountInString(id) < MinPrefix || len(id) >= idLen {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	// Ids are lowercase hex, so every id with the prefix sorts below
	// prefix+"~".
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, id, id+"~")
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	defer rows.Close()
	var found []*Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("reading session %s: %w", id, err)
		}
		found = append(found, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("session %q (%s, %s, ...): %w", id, found[0].ID, found[1].ID, ErrAmbiguous)
}

// Latest returns the most recently updated top-level session (not a
// subagent's) of the working directory dir (made absolute and cleaned, as
// Create does), or ErrNotFound.
func (s *Store) Latest(ctx context.Context, dir string) (*Session, error) {
	dir, err := cleanDir(dir)
	if err != nil {
		return nil, fmt.Errorf("finding the latest session: %w", err)
	}
	ss, err := scanSession(s.conn(ctx).QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE dir = ? AND parent_id IS NULL ORDER BY updated_at DESC, rowid DESC LIMIT 1`, dir))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no session in %s: %w", dir, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("finding the latest session in %s: %w", dir, err)
	}
	return ss, nil
}

// ListOptions filter List.
type ListOptions struct {
	// Dir keeps the sessions of that working directory; "" keeps all.
	Dir string
	// Limit caps the number of sessions; 0 or less means no cap.
	Limit int
	// Subagents lists subagents' sessions too; by default only top-level
	// sessions are listed (Children lists a session's subagents).
	Subagents bool
}

// List returns sessions, most recently updated first.
func (s *Store) List(ctx context.Context, opts ListOptions) ([]Summary, error) {
	q := `SELECT ` + sessionColumns + ` FROM sessions WHERE 1`
	var args []any
	if opts.Dir != "" {
		dir, err := cleanDir(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		q += ` AND dir = ?`
		args = append(args, dir)
	}
	if !opts.Subagents {
		q += ` AND parent_id IS NULL`
	}
	q += ` ORDER BY updated_at DESC, rowid DESC`
	if opts.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, opts.Limit)
	}
	rows, err := s.conn(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	var list []Summary
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		list = append(list, ss.Summary)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	return list, nil
}

// Missing returns the ids, of those given (exact, not prefixes), that no
// session has, in their order: one query however many are asked of.
func (s *Store) Missing(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("looking sessions up: %w", err)
	}
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("looking sessions up: %w", err)
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("looking sessions up: %w", err)
		}
		found[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("looking sessions up: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// Delete removes the session with exactly this id, with its messages and
// tool calls. An unknown id is ErrNotFound; resolve a prefix with Get first.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.updateSession(ctx, "deleting session", id, `DELETE FROM sessions WHERE id = ?`, id)
}

// SetStatus records how the session's last turn ended and bumps its updated
// time.
func (s *Store) SetStatus(ctx context.Context, id string, status Status) error {
	if !status.valid() {
		return fmt.Errorf("setting status of session %s: invalid status %q", id, status)
	}
	return s.updateSession(ctx, "setting status of session", id,
		`UPDATE sessions SET status = ?, updated_at = ? WHERE id = ?`, status, millis(s.now()), id)
}

// SetSystemPrompt replaces the session's stored system prompt (a host
// told its own after the session was made, before its first message).
// An unknown id is ErrNotFound.
func (s *Store) SetSystemPrompt(ctx context.Context, id, system string) error {
	return s.updateSession(ctx, "setting the system prompt of session", id,
		`UPDATE sessions SET system_prompt = ? WHERE id = ?`, system, id)
}

// SetTitle renames the session; its updated time is kept.
func (s *Store) SetTitle(ctx context.Context, id, title string) error {
	return s.updateSession(ctx, "setting title of session", id, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
}

// updateSession runs one statement that must touch the session id.
func (s *Store) updateSession(ctx context.Context, what, id, query string, args ...any) error {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s: %w", what, id, ErrNotFound)
	}
	return nil
}

// TitleFromPrompt derives a session title from the user's first prompt: its
// first non-blank line, trimmed, cut to 80 characters with an ellipsis.
func TitleFromPrompt(prompt string) string {
	for line := range strings.Lines(prompt) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > 80 {
			r := []rune(line)
			line = strings.TrimSpace(string(r[:79])) + "…"
		}
		return line
	}
	return ""
}
