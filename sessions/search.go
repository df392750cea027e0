package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/agent-dev/agent/providers"
)

// SearchOptions narrow Store.Search.
type SearchOptions struct {
	// Root keeps the sessions whose working directory is Root or below it
	// (an absolute path, as Create stores it); "" keeps every session.
	Root string
	// Also are more directories whose sessions (and those below them)
	// Root keeps beside its own: the project's worktrees, which live
	// outside it. They count only with a Root.
	Also []string
	// Exclude leaves out the session with this id (the one asking); ""
	// leaves out none.
	Exclude string
	// Limit caps the number of hits; 0 or less means 10.
	Limit int
}

// Hit is one message that matched a search.
type Hit struct {
	SessionID string
	Title     string // the session's
	Dir       string // the session's working directory
	Seq       int    // the message's place in its session, from 1
	Role      providers.Role
	CreatedAt time.Time
	// Score is the message's BM25 relevance to the query (SQLite FTS5's
	// bm25() negated): positive, higher is better, comparable only
	// between hits of one search.
	Score float64
	// Text is the message's searchable text (see the message_text view
	// of migration 9): text parts, tool calls and tool results, one part
	// a line, secrets masked as they were stored.
	Text string
}

// Bounds of a search's work, so that it stays within tens of milliseconds
// on a database of 100,000 messages (BENCHMARKS.md).
const (
	// commonWord: a word found in this many messages or more is common;
	// with rarer words beside it in a query, it is left out.
	commonWord = 1000
	// maxCandidates: of more matching messages than this, the most recent
	// are ranked.
	maxCandidates = 2000
)

// Search returns the stored messages that match query, best first. query
// is plain words, not FTS5 syntax: each word of letters and digits is
// looked up (English inflections folded by the Porter stemmer), and a
// message matches when it has any of them, ranked by BM25. Words of one
// character and common English words are ignored; a query with no other
// word returns no hits and no error. A word found in 1,000 messages or
// more is left out when the query has rarer ones (it says little of what
// is sought), and when more than 2,000 messages match, the 2,000 most
// recent are ranked. Deleted sessions' messages are gone from the index
// with them.
func (s *Store) Search(ctx context.Context, query string, o SearchOptions) ([]Hit, error) {
	// The messages written since the index was brought up to date join
	// it first; a search that cannot wait for the write lock (another
	// process's long write) searches the index as it is.
	ictx, cancel := context.WithTimeout(ctx, indexWait)
	s.indexNew(ictx, 1)
	cancel()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	words, err := s.selective(ctx, uniqueWords(query))
	if err != nil {
		return nil, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	if len(words) == 0 {
		return nil, nil
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	// First the best rows, from the index and the two small tables; then
	// the text of those rows only (building it decodes the parts).
	// The scope's sessions are listed once; each candidate message is then
	// checked against that list rather than joined to its session.
	scope := `SELECT id FROM sessions WHERE id != ?2`
	args := []any{matchOf(words), o.Exclude}
	where, more := o.scope(3)
	scope += where
	args = append(args, more...)
	q := `SELECT f.rowid, bm25(messages_fts) AS r FROM messages_fts AS f
		JOIN messages AS m ON m.id = f.rowid
		WHERE messages_fts MATCH ?1 AND m.session_id IN (` + scope + `)`
	q = `SELECT rowid, r FROM (` + q + fmt.Sprintf(` ORDER BY f.rowid DESC LIMIT %d) ORDER BY r LIMIT %d`, maxCandidates, limit)
	hits, err := s.rankedRows(ctx, q, args)
	if err != nil {
		return nil, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	if err := s.fillHits(ctx, hits); err != nil {
		return nil, fmt.Errorf("searching sessions for %q: %w", query, err)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
	}
	return out, nil
}

// scope is the condition on a session's dir that keeps the sessions of
// o.Root and o.Also (" AND (...)", "" for every session), with its
// arguments, numbered from ?first on.
func (o SearchOptions) scope(first int) (string, []any) {
	if o.Root == "" {
		return "", nil
	}
	var conds []string
	var args []any
	for _, d := range append([]string{o.Root}, o.Also...) {
		d = strings.TrimSuffix(d, "/")
		if d == "" {
			continue
		}
		// Every path below d sorts between d+"/" and d+"0" ('0' follows
		// '/').
		n := first + len(args)
		conds = append(conds, fmt.Sprintf(`dir = ?%d OR (dir >= ?%d AND dir < ?%d)`, n, n+1, n+2))
		args = append(args, d, d+"/", d+"0")
	}
	return " AND (" + strings.Join(conds, " OR ") + ")", args
}

// rankedHit is a Hit while Search fills it in.
type rankedHit struct {
	Hit
	rowid int64
}

// fillHits reads the session, message and text of each hit's row.
func (s *Store) fillHits(ctx context.Context, hits []rankedHit) error {
	for i := range hits {
		h := &hits[i]
		var created sql.NullInt64
		err := s.conn(ctx).QueryRowContext(ctx, `SELECT s.id, s.title, s.dir, m.seq, m.role, m.created_at, coalesce(t.body, '')
			FROM messages AS m JOIN sessions AS s ON s.id = m.session_id JOIN message_text AS t ON t.id = m.id
			WHERE m.id = ?`, h.rowid).Scan(&h.SessionID, &h.Title, &h.Dir, &h.Seq, &h.Role, &created, &h.Text)
		if err != nil {
			return err
		}
		h.CreatedAt = fromMillis(created)
	}
	return nil
}

// rankedRows runs Search's first query: message row ids and their ranks.
func (s *Store) rankedRows(ctx context.Context, q string, args []any) ([]rankedHit, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []rankedHit
	for rows.Next() {
		var h rankedHit
		if err := rows.Scan(&h.rowid, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// uniqueWords returns the words of text a search looks up (see Words),
// each once.
func uniqueWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range Words(text) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// matchOf is the FTS5 query of words: each quoted (so that FTS5's operators
// are never interpreted), joined with OR.
func matchOf(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return strings.Join(q, " OR ")
}

// selective returns the words found in fewer than commonWord messages, or
// all of words when every one is common. Counting stops at commonWord, so
// each word costs at most that many index entries.
func (s *Store) selective(ctx context.Context, words []string) ([]string, error) {
	var rare []string
	for _, w := range words {
		var n int
		err := s.conn(ctx).QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM messages_fts
			WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`, matchOf([]string{w}), commonWord).Scan(&n)
		if err != nil {
			return nil, err
		}
		if n < commonWord {
			rare = append(rare, w)
		}
	}
	if len(rare) == 0 {
		return words, nil
	}
	return rare, nil
}

// Words returns the words of text that a search looks up, lowercased, in
// order, repeats kept: runs of letters and digits, without one-character
// words and common English words ("the", "what", "did").
func Words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) > 1 && !isStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// isStopWord reports whether w is a common English word that matches most
// messages and says nothing of what a search is after; looking it up would
// only slow the search.
func isStopWord(w string) bool {
	switch w {
	case "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could",
		"did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "if", "in", "into",
		"is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "than", "that", "the",
		"their", "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were", "what",
		"when", "where", "which", "who", "why", "will", "with", "would", "you", "your":
		return true
	}
	return false
}

// Reindex rebuilds the search index from the stored messages: for a
// database whose index was damaged or built by a different tokenizer.
// Migration 8 builds it once and indexNew keeps it current, so this is
// never needed in normal use. It returns how many messages were indexed.
func (s *Store) Reindex(ctx context.Context) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (messages_fts) VALUES ('delete-all')`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (rowid, body) SELECT id, body FROM message_text WHERE body IS NOT NULL`)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE fts_state SET indexed = (SELECT coalesce(max(id), 0) FROM messages)`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO messages_fts (messages_fts) VALUES ('optimize')`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("rebuilding the search index: %w", err)
	}
	return int(n), nil
}

// indexWait is the most a search or a store's close waits to bring the
// search index up to date; what is left waits for the next.
const indexWait = 2 * time.Second

// indexAtClose is how many messages must be waiting for the search index
// before a store's close indexes them (a search indexes any first). Each
// index write has a part that does not grow with its messages (FTS5
// writes a segment and merges segments): indexed at every close, a
// five-step -p run's 11 messages took 5% of its CPU time; in writes of 200,
// less than half that a message (BENCHMARKS.md, "Issue 43, a fifth pass").
const indexAtClose = 200

// indexNew indexes the messages written since the index was last brought
// up to date (migration 16), in one transaction, when there are at least
// least of them (by id: max(id) less the last indexed): a search asks for
// 1, and so finds every message stored before it. The check that nothing
// waits is one read.
func (s *Store) indexNew(ctx context.Context, least int64) error {
	var pending int64
	if err := s.conn(ctx).QueryRowContext(ctx, `SELECT coalesce((SELECT max(id) FROM messages), 0) - (SELECT indexed FROM fts_state)`).Scan(&pending); err != nil {
		return fmt.Errorf("bringing the search index up to date: %w", err)
	}
	if pending <= 0 || pending < least {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var from, top int64
		if err := tx.QueryRowContext(ctx, `SELECT indexed, coalesce((SELECT max(id) FROM messages), 0) FROM fts_state`).Scan(&from, &top); err != nil {
			return err
		}
		if top <= from {
			return nil // another process did it meanwhile
		}
		// Those the backlog of an older agent's index filled already
		// (its range may reach past indexed: the newest sessions were
		// deleted before the upgrade) are not indexed twice.
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (rowid, body)
			SELECT id, body FROM message_text WHERE id > ?1 AND id <= ?2 AND body IS NOT NULL
			AND id NOT IN (SELECT rowid FROM messages_fts WHERE rowid > ?1 AND rowid <= ?2)`, from, top); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE fts_state SET indexed = ?`, top)
		return err
	})
	if err != nil {
		return fmt.Errorf("bringing the search index up to date: %w", err)
	}
	return nil
}

// MessageRange returns the messages of session id with seq from to to
// (both included, clamped to the messages there are), in order, as
// recorded. An unknown id is ErrNotFound; a range past the end is empty.
func (s *Store) MessageRange(ctx context.Context, id string, from, to int) ([]MessageRecord, error) {
	recs, _, err := s.messageRecords(ctx, id, max(from, 1))
	if err != nil {
		return nil, fmt.Errorf("reading messages of session %s: %w", id, err)
	}
	for i, r := range recs {
		if r.Seq > to {
			return recs[:i], nil
		}
	}
	return recs, nil
}
