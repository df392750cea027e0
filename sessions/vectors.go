package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
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
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT m.id, coalesce(t.body, '') FROM messages AS m
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
	for id, session := range sessionOf {
		if s.vecs.model == model {
			s.vecs.put(id, session, vecs[id])
		}
		if l := s.vecLoad; l != nil && l.model == model {
			l.pending = append(l.pending, pendingVector{id, session, vecs[id]})
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
// BENCHMARKS.md), from memory (see vectorCache): the model's vectors, 1
// byte a dimension each, are loaded in the background, and until they are
// a search reads the vectors it compares from SQLite (exact float32
// scores, about 0.25 s at 5,000 vectors of 1,536 dimensions). Messages
// without a vector are not found here.
func (s *Store) NearestMessages(ctx context.Context, model string, q []float32, o SearchOptions) ([]Hit, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	scope, err := s.scopeSessions(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	var hits []rankedHit
	s.vecMu.Lock()
	if s.vecs.model == model {
		err = s.loadInto(ctx, &s.vecs) // what another process stored since
		if err == nil {
			hits = s.vecs.nearest(q, scope, limit)
		}
		s.vecMu.Unlock()
	} else {
		// Not in memory yet: read this search's from SQLite, then load
		// them all in the background for the next searches (after, so
		// that the load does not slow this search down).
		s.vecMu.Unlock()
		hits, err = s.nearestFromDB(ctx, model, q, o, limit)
		s.vecMu.Lock()
		if s.vecs.model != model {
			s.startLoad(model)
		}
		s.vecMu.Unlock()
	}
	if err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
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
	where, more := o.scope(2)
	q += where
	args = append(args, more...)
	rows, err := s.conn(ctx).QueryContext(ctx, q, args...)
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

// nearestFromDB is NearestMessages reading the scope's most recent
// vectors from SQLite, for a search before they are in memory.
func (s *Store) nearestFromDB(ctx context.Context, model string, q []float32, o SearchOptions, limit int) ([]rankedHit, error) {
	scope := `SELECT id FROM sessions WHERE id != ?2`
	args := []any{model, o.Exclude}
	where, more := o.scope(3)
	scope += where
	args = append(args, more...)
	// CROSS JOIN keeps message_vectors the outer loop, walked by rowid
	// from the newest, so that no sort of the vectors is needed and the
	// walk stops at the bound.
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT v.message_id, v.vector FROM message_vectors AS v
		CROSS JOIN messages AS m ON m.id = v.message_id
		WHERE v.model = ?1 AND length(v.vector) > 0 AND m.session_id IN (`+scope+`)
		ORDER BY v.message_id DESC LIMIT `+fmt.Sprint(maxNearCandidates), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	qn := norm(q)
	var hits []rankedHit
	var blob []byte
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		sim := cosine(q, qn, blob)
		if len(hits) == limit && sim <= hits[len(hits)-1].Score {
			continue
		}
		h := rankedHit{rowid: id}
		h.Score = sim
		i, _ := slices.BinarySearchFunc(hits, sim, func(a rankedHit, t float64) int { return cmp.Compare(t, a.Score) })
		hits = slices.Insert(hits, i, h)
		if len(hits) > limit {
			hits = hits[:limit]
		}
	}
	return hits, rows.Err()
}

// cosine is the cosine similarity of q (whose norm is qn) and the stored
// vector b; 0 when either is zero or their lengths differ.
func cosine(q []float32, qn float64, b []byte) float64 {
	if len(b) != 4*len(q) || qn == 0 {
		return 0
	}
	var dot, bn float64
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		dot += float64(x) * y
		bn += y * y
	}
	if bn == 0 {
		return 0
	}
	return dot / (qn * math.Sqrt(bn))
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
