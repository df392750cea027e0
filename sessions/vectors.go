package sessions

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Passage is a message's searchable text, to embed (see Store.Unembedded).
type Passage struct {
	ID   int64  // the message's row id
	Text string // as Hit.Text
}

// Unembedded returns up to limit messages, newest first, that have no
// vector for model yet, with their searchable text ("" for a message with
// none: store an empty vector for it so that it is not returned again).
func (s *Store) Unembedded(ctx context.Context, model string, limit int) ([]Passage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT m.id, coalesce(t.body, '') FROM messages AS m
		JOIN message_text AS t ON t.id = m.id
		WHERE NOT EXISTS (SELECT 1 FROM message_vectors AS v WHERE v.message_id = m.id AND v.model = ?1)
		ORDER BY m.id DESC LIMIT ?2`, model, limit)
	if err != nil {
		return nil, fmt.Errorf("listing messages to embed: %w", err)
	}
	defer rows.Close()
	var out []Passage
	for rows.Next() {
		var p Passage
		if err := rows.Scan(&p.ID, &p.Text); err != nil {
			return nil, fmt.Errorf("listing messages to embed: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PutVectors stores the vectors of messages (message row id to vector) for
// model, replacing any it had (of any model); a message deleted meanwhile
// is skipped.
func (s *Store) PutVectors(ctx context.Context, model string, vecs map[int64][]float32) error {
	sessionOf := map[int64]string{}
	err := s.write(ctx, func(tx *sql.Tx) error {
		clear(sessionOf)
		for id, v := range vecs {
			var session string
			err := tx.QueryRowContext(ctx, `SELECT session_id FROM messages WHERE id = ?`, id).Scan(&session)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO message_vectors (message_id, model, vector) VALUES (?, ?, ?)`,
				id, model, EncodeVector(v))
			if err != nil {
				return err
			}
			sessionOf[id] = session
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storing embeddings: %w", err)
	}
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	if s.vecs.model == model {
		for id, session := range sessionOf {
			s.vecs.put(id, session, vecs[id])
		}
	}
	return nil
}

// NearestMessages returns the messages in o's scope whose vectors for
// model are nearest to q by cosine similarity, best first, at most o.Limit
// (0 or less: 10). Hit.Score is the similarity, -1 to 1, computed on the
// vectors quantised to int8 (within about 0.01 of the exact one). The
// vectors of the scope's 5,000 most recent embedded messages are compared
// (no approximate index: the cost is linear in their number,
// BENCHMARKS.md), from memory: the first search of the process loads the
// model's vectors (1 byte a dimension each) and later ones read only
// those stored since (see vectorCache). Messages without a vector are not
// found here.
func (s *Store) NearestMessages(ctx context.Context, model string, q []float32, o SearchOptions) ([]Hit, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	scope, err := s.scopeSessions(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	s.vecMu.Lock()
	c, err := s.vectors(ctx, model)
	var hits []rankedHit
	if err == nil {
		hits = c.nearest(q, scope, limit)
	}
	s.vecMu.Unlock()
	if err != nil {
		return nil, err
	}
	hits, err = s.fillLiveHits(ctx, hits)
	if err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
	}
	return out, nil
}

// scopeSessions are the ids of the sessions o searches: those under
// o.Root ("": every one) but o.Exclude.
func (s *Store) scopeSessions(ctx context.Context, o SearchOptions) (map[string]bool, error) {
	q := `SELECT id FROM sessions WHERE id != ?1`
	args := []any{o.Exclude}
	if o.Root != "" {
		root := strings.TrimSuffix(o.Root, "/")
		q += ` AND (dir = ?2 OR (dir >= ?3 AND dir < ?4))`
		args = append(args, root, root+"/", root+"0")
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	scope := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		scope[id] = true
	}
	return scope, rows.Err()
}

// fillLiveHits is fillHits for hits whose messages may have been deleted
// since their vectors were loaded (by another process): those are left out.
func (s *Store) fillLiveHits(ctx context.Context, hits []rankedHit) ([]rankedHit, error) {
	out := hits[:0]
	for _, h := range hits {
		one := []rankedHit{h}
		err := s.fillHits(ctx, one)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, one[0])
	}
	return out, nil
}

// maxNearCandidates bounds how many vectors one NearestMessages compares:
// the most recent, as Search ranks only its 2,000 most recent matches.
const maxNearCandidates = 5000

// EncodeVector is v as stored: each float32 little-endian.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// norm is the Euclidean norm of v.
func norm(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Sqrt(n)
}
