package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/agent-dev/agent/sessions"
)

// rrfK is reciprocal rank fusion's constant (Cormack, Clarke and
// Büttcher, 2009): a hit ranked r-th (from 1) in a ranking adds
// 1/(rrfK+r) to its fused score.
const rrfK = 60

// nearest returns the stored messages nearest in meaning to the query
// whose vector is q (nil: none, and nil is returned), in opts' scope; on a
// failure nil is returned, so that the search goes on with keywords only
// and says nothing of it to the model.
func (m *Memory) nearest(ctx context.Context, q []float32, opts sessions.SearchOptions) []sessions.Hit {
	if q == nil || m.store == nil {
		return nil
	}
	hits, err := m.store.NearestMessages(ctx, m.embed.Model(), q, opts)
	if err != nil {
		return nil
	}
	return hits
}

// fuse merges the keyword ranking and the ranking by meaning of the same
// messages by reciprocal rank fusion: each message's score becomes the
// sum of 1/(60+rank) over the rankings it is in, so a message both find
// comes first, and neither ranking's raw scores (BM25, cosine) need be
// comparable. The result is best first.
func fuse(keyword, meaning []sessions.Hit) []sessions.Hit {
	return rrf(keyword, meaning, func(h sessions.Hit) string { return fmt.Sprintf("%s:%d", h.SessionID, h.Seq) },
		func(h *sessions.Hit, score float64) { h.Score = score })
}

// fuseResults is fuse for the memory files' passages, known by their
// project and source (file and line).
func fuseResults(keyword, meaning []Result) []Result {
	return rrf(keyword, meaning, func(r Result) string { return r.Project + "\x00" + r.Source },
		func(r *Result, score float64) { r.Score = score })
}

// rrf is reciprocal rank fusion of two rankings of items known by key;
// setScore gives each its fused score.
func rrf[T any](keyword, meaning []T, key func(T) string, setScore func(*T, float64)) []T {
	type fused struct {
		item  T
		score float64
	}
	byKey := map[string]*fused{}
	var order []*fused
	for _, ranking := range [][]T{keyword, meaning} {
		for i, it := range ranking {
			k := key(it)
			f, ok := byKey[k]
			if !ok {
				f = &fused{item: it}
				byKey[k] = f
				order = append(order, f)
			}
			f.score += 1.0 / float64(rrfK+i+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *fused) int { return cmp.Compare(b.score, a.score) })
	out := make([]T, len(order))
	for i, f := range order {
		out[i] = f.item
		setScore(&out[i], f.score)
	}
	return out
}
