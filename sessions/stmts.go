package sessions

import (
	"context"
	"database/sql"
)

// stmt returns query prepared once per store for the write transaction tx:
// the statements every message writes are parsed and planned (their FTS5
// and image triggers included) the first time only, then reused on each
// of the pool's connections. It must be called from a write (s.writeMu
// held), which guards the cache; writeWith prepares them before the
// transaction begins.
func (s *Store) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st), nil
}

// prepared returns query prepared on the database, once per store
// (s.writeMu held).
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.conn(ctx).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// The statements a message's write runs.
const (
	sqlCountMessage = `UPDATE sessions SET
		message_count = message_count + 1,
		input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
		cached_tokens = cached_tokens + ?, reasoning_tokens = reasoning_tokens + ?,
		cache_write_tokens = cache_write_tokens + ?, updated_at = ?
	WHERE id = ? RETURNING message_count`
	// sqlCountMessageQuiet is sqlCountMessage that leaves the updated
	// time (Recorder.due).
	sqlCountMessageQuiet = `UPDATE sessions SET
		message_count = message_count + 1,
		input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
		cached_tokens = cached_tokens + ?, reasoning_tokens = reasoning_tokens + ?,
		cache_write_tokens = cache_write_tokens + ?
	WHERE id = ? RETURNING message_count`
	sqlInsertImage   = `INSERT OR IGNORE INTO images (sha256, media_type, data, created_at) VALUES (?, ?, ?, ?)`
	sqlInsertMessage = `INSERT INTO messages
		(session_id, seq, role, parts, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cache_write_tokens, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertToolCall = `INSERT INTO tool_calls
		(session_id, message_id, call_id, name, arguments, status) VALUES (?, ?, ?, ?, ?, 'pending')`
)
