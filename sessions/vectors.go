package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		for id, v := range vecs {
			_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO message_vectors (message_id, model, vector)
				SELECT id, ?, ? FROM messages WHERE id = ?`, model, EncodeVector(v), id)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storing embeddings: %w", err)
	}
	return nil
}

// NearestMessages returns the messages in o's scope whose vectors for
// model are nearest to q by cosine similarity, best first, at most o.Limit
// (0 or less: 10). Hit.Score is the similarity, -1 to 1. The vectors of
// the scope's 5,000 most recent embedded messages are compared (no
// approximate index: the cost is linear in their number, BENCHMARKS.md).
// Messages without a vector are not found here.
func (s *Store) NearestMessages(ctx context.Context, model string, q []float32, o SearchOptions) ([]Hit, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	scope := `SELECT id FROM sessions WHERE id != ?2`
	args := []any{model, o.Exclude}
	if o.Root != "" {
		root := strings.TrimSuffix(o.Root, "/")
		scope += ` AND (dir = ?3 OR (dir >= ?4 AND dir < ?5))`
		args = append(args, root, root+"/", root+"0")
	}
	// CROSS JOIN keeps message_vectors the outer loop, walked by rowid
	// from the newest, so that no sort of the vectors is needed and the
	// walk stops at the bound.
	rows, err := s.db.QueryContext(ctx, `SELECT v.message_id, v.vector FROM message_vectors AS v
		CROSS JOIN messages AS m ON m.id = v.message_id
		WHERE v.model = ?1 AND length(v.vector) > 0 AND m.session_id IN (`+scope+`)
		ORDER BY v.message_id DESC LIMIT `+fmt.Sprint(maxNearCandidates), args...)
	if err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	defer rows.Close()
	qn := norm(q)
	var hits []rankedHit
	var blob []byte
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("searching embeddings: %w", err)
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	if err := s.fillHits(ctx, hits); err != nil {
		return nil, fmt.Errorf("searching embeddings: %w", err)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
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

func norm(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Sqrt(n)
}
