package sessions

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// vectorCache holds, in memory, the message vectors of one embedding model,
// quantised to int8 (one byte a dimension, with one scale a vector), so
// that a search by meaning reads no vector from SQLite: they are loaded
// once, in the background (the first search, which reads the vectors it
// needs from SQLite, starts the load; so does the background embedder,
// LoadVectors), and kept current by this process's PutVectors; vectors
// another process stored are loaded at the next search (those of messages
// newer than any known; a message deleted meanwhile is skipped when its
// hit is filled). Sessions in scope are read at each search, so a
// deleted session's vectors are never found.
type vectorCache struct {
	model  string // "" until loaded
	dims   int
	maxID  int64 // the largest message id loaded from the database
	ids    []int64
	sess   []int32   // index in sessIDs of each vector's session
	scales []float32 // 1 / the norm of each quantised vector (0: a zero vector)
	data   []int8    // len(ids)*dims
	at     map[int64]int32
	// sessIDs are the sessions of the vectors; sessIdx maps them back.
	sessIDs []string
	sessIdx map[string]int32
}

// reset forgets everything and readies the cache for model.
func (c *vectorCache) reset(model string) {
	*c = vectorCache{model: model, at: map[int64]int32{}, sessIdx: map[string]int32{}}
}

// put adds or replaces the vector of message id, of session; a vector
// whose length is not the cache's dimension (or empty) is left out.
func (c *vectorCache) put(id int64, session string, v []float32) {
	if len(v) == 0 {
		return
	}
	if c.dims == 0 {
		c.dims = len(v)
	}
	if len(v) != c.dims {
		return
	}
	si, ok := c.sessIdx[session]
	if !ok {
		si = int32(len(c.sessIDs))
		c.sessIDs = append(c.sessIDs, session)
		c.sessIdx[session] = si
	}
	i, ok := c.at[id]
	if !ok {
		i = int32(len(c.ids))
		c.at[id] = i
		c.ids = append(c.ids, id)
		c.sess = append(c.sess, si)
		c.scales = append(c.scales, 0)
		c.data = append(c.data, make([]int8, c.dims)...)
	}
	c.sess[i] = si
	c.scales[i] = quantise(v, c.data[int(i)*c.dims:(int(i)+1)*c.dims])
}

// quantise writes v scaled to int8 into out (the largest magnitude becomes
// 127) and returns 1 over the quantised vector's norm (0 for a zero one).
func quantise(v []float32, out []int8) float32 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	if m == 0 {
		clear(out)
		return 0
	}
	var n float64
	for i, x := range v {
		q := math.Round(float64(x) * 127 / m)
		out[i] = int8(q)
		n += q * q
	}
	return float32(1 / math.Sqrt(n))
}

// nearest ranks the newest maxNearCandidates vectors of the sessions in
// scope by cosine similarity with q, best first, at most limit.
func (c *vectorCache) nearest(q []float32, scope map[string]bool, limit int) []rankedHit {
	if len(q) != c.dims || c.dims == 0 {
		return nil
	}
	in := make([]bool, len(c.sessIDs))
	for i, id := range c.sessIDs {
		in[i] = scope[id]
	}
	var cand []int32
	for i := range c.ids {
		if in[c.sess[i]] && c.scales[i] != 0 {
			cand = append(cand, int32(i))
		}
	}
	if len(cand) > maxNearCandidates {
		slices.SortFunc(cand, func(a, b int32) int { return cmp.Compare(c.ids[b], c.ids[a]) })
		cand = cand[:maxNearCandidates]
	}
	qn := norm(q)
	if qn == 0 {
		return nil
	}
	qs := make([]float32, len(q))
	for i, x := range q {
		qs[i] = float32(float64(x) / qn)
	}
	var hits []rankedHit
	for _, i := range cand {
		sim := float64(dotInt8(qs, c.data[int(i)*c.dims:(int(i)+1)*c.dims]) * c.scales[i])
		if len(hits) == limit && sim <= hits[len(hits)-1].Score {
			continue
		}
		h := rankedHit{rowid: c.ids[i]}
		h.Score = sim
		at, _ := slices.BinarySearchFunc(hits, sim, func(a rankedHit, t float64) int { return cmp.Compare(t, a.Score) })
		hits = slices.Insert(hits, at, h)
		if len(hits) > limit {
			hits = hits[:limit]
		}
	}
	return hits
}

// dotInt8 is the dot product of q and v (of the same length), four
// accumulators wide.
func dotInt8(q []float32, v []int8) float32 {
	v = v[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(v[i])
		s1 += q[i+1] * float32(v[i+1])
		s2 += q[i+2] * float32(v[i+2])
		s3 += q[i+3] * float32(v[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(v[i])
	}
	return s0 + s1 + s2 + s3
}

// vectorLoad is a load of a model's vectors under way in the background.
type vectorLoad struct {
	model   string
	pending []pendingVector // stored by PutVectors while it loads
	done    chan struct{}   // closed when it ends; err is set before
	err     error
}

// pendingVector is a vector PutVectors stored during a load.
type pendingVector struct {
	id      int64
	session string
	v       []float32
}

// loadInto adds to c the vectors of c.model stored for messages newer than
// c.maxID (all of them for a new cache).
func (s *Store) loadInto(ctx context.Context, c *vectorCache) error {
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT v.message_id, m.session_id, v.vector FROM message_vectors AS v
		JOIN messages AS m ON m.id = v.message_id
		WHERE v.model = ? AND length(v.vector) > 0 AND v.message_id > ?`, c.model, c.maxID)
	if err != nil {
		return fmt.Errorf("loading embeddings: %w", err)
	}
	defer rows.Close()
	var blob []byte
	for rows.Next() {
		var id int64
		var session string
		if err := rows.Scan(&id, &session, &blob); err != nil {
			return fmt.Errorf("loading embeddings: %w", err)
		}
		c.put(id, session, decodeVector(blob))
		c.maxID = max(c.maxID, id)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("loading embeddings: %w", err)
	}
	return nil
}

// startLoad starts loading model's vectors in the background, unless a
// load of it is under way, and returns the load. Call it with s.vecMu
// held. The load stops when the store closes.
func (s *Store) startLoad(model string) *vectorLoad {
	if l := s.vecLoad; l != nil && l.model == model {
		return l
	}
	l := &vectorLoad{model: model, done: make(chan struct{})}
	s.vecLoad = l
	s.vecWG.Add(1)
	go func() {
		defer s.vecWG.Done()
		var c vectorCache
		c.reset(model)
		err := s.loadInto(s.bg, &c)
		s.vecMu.Lock()
		if s.vecLoad == l {
			s.vecLoad = nil
			if err == nil {
				for _, p := range l.pending {
					c.put(p.id, p.session, p.v)
				}
				s.vecs = c
			}
		}
		l.err = err
		s.vecMu.Unlock()
		close(l.done)
	}()
	return l
}

// LoadVectors loads the vectors of model into memory (see
// NearestMessages), unless they are, and returns once they are, or when
// ctx ends (the load goes on). The background embedder calls it before it
// fills vectors, off any turn's path. Errors are SQLite's, wrapped.
func (s *Store) LoadVectors(ctx context.Context, model string) error {
	s.vecMu.Lock()
	if s.vecs.model == model {
		s.vecMu.Unlock()
		return nil
	}
	l := s.startLoad(model)
	s.vecMu.Unlock()
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// decodeVector is EncodeVector's inverse; a blob whose length is not a
// multiple of 4 gives nil.
func decodeVector(b []byte) []float32 {
	if len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return v
}
