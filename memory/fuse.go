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
	type fused struct {
		hit   sessions.Hit
		score float64
	}
	byKey := map[string]*fused{}
	var order []*fused
	for _, ranking := range [][]sessions.Hit{keyword, meaning} {
		for i, h := range ranking {
			k := fmt.Sprintf("%s:%d", h.SessionID, h.Seq)
			f, ok := byKey[k]
			if !ok {
				f = &fused{hit: h}
				byKey[k] = f
				order = append(order, f)
			}
			f.score += 1.0 / float64(rrfK+i+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *fused) int { return cmp.Compare(b.score, a.score) })
	out := make([]sessions.Hit, len(order))
	for i, f := range order {
		out[i] = f.hit
		out[i].Score = f.score
	}
	return out
}

// fuseResults is fuse for the memory files' passages, known by their
// source (file and line).
func fuseResults(keyword, meaning []Result) []Result {
	type fused struct {
		r     Result
		score float64
	}
	byKey := map[string]*fused{}
	var order []*fused
	for _, ranking := range [][]Result{keyword, meaning} {
		for i, r := range ranking {
			k := r.Project + "\x00" + r.Source
			f, ok := byKey[k]
			if !ok {
				f = &fused{r: r}
				byKey[k] = f
				order = append(order, f)
			}
			f.score += 1.0 / float64(rrfK+i+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *fused) int { return cmp.Compare(b.score, a.score) })
	out := make([]Result, len(order))
	for i, f := range order {
		out[i] = f.r
		out[i].Score = f.score
	}
	return out
}
