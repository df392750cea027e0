package memory

import (
	"cmp"
	"context"
	"crypto/sha256"
	"math"
	"slices"
	"sync"
)

// maxChunkEmbeds bounds how many memory-file chunks one search embeds
// (with its query, in one request); the rest wait for the next search.
const maxChunkEmbeds = 128

// fileVectors are the vectors of the memory files' chunks, by the SHA-256
// of their text, for one embedding model: a chunk is embedded once per
// process, with the first search's query that meets it; an edited chunk
// is a new text. Safe for concurrent use.
type fileVectors struct {
	mu    sync.Mutex
	model string
	byKey map[[32]byte][]float32
}

// get returns the vector of text for model, if known.
func (f *fileVectors) get(model, text string) ([]float32, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.model != model {
		return nil, false
	}
	v, ok := f.byKey[sha256.Sum256([]byte(text))]
	return v, ok
}

// put keeps the vector of text for model.
func (f *fileVectors) put(model, text string, v []float32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.model != model || f.byKey == nil {
		f.model, f.byKey = model, map[[32]byte][]float32{}
	}
	f.byKey[sha256.Sum256([]byte(text))] = v
}

// queryVector embeds query when embeddings are in use, within
// QueryTimeout, in one request with the chunks of the memory files that
// have no vector yet (at most maxChunkEmbeds), whose vectors it keeps. On
// any failure (the endpoint off, slow or broken) it returns nil, and the
// search goes on by keywords. It also asks the background indexer for a
// round, so that messages written since its last one get their vectors.
func (m *Memory) queryVector(ctx context.Context, query string, chunks []chunk) []float32 {
	if m.embed == nil {
		return nil
	}
	defer m.kickIndexer()
	if off, _ := m.embed.Off(); off {
		return nil
	}
	model := m.embed.Model()
	texts := []string{query}
	for _, c := range chunks {
		if _, ok := m.files.get(model, c.text); !ok && len(texts) <= maxChunkEmbeds && !slices.Contains(texts[1:], c.text) {
			texts = append(texts, c.text)
		}
	}
	qctx, cancel := context.WithTimeout(ctx, m.queryTimeout)
	defer cancel()
	vs, err := m.embed.Embed(qctx, texts)
	if err != nil || len(vs) != len(texts) {
		return nil
	}
	for i, t := range texts[1:] {
		m.files.put(model, t, vs[i+1])
	}
	return vs[0]
}

// nearestChunks ranks the chunks that have a vector by cosine similarity
// with q and returns the best limit, as results scored by similarity.
func (m *Memory) nearestChunks(chunks []chunk, q []float32, limit int) []Result {
	model := m.embed.Model()
	var out []Result
	for _, c := range chunks {
		if v, ok := m.files.get(model, c.text); ok {
			if sim := cosine(q, v); sim > 0 {
				out = append(out, c.result(sim))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(len(out), limit)]
}

// cosine is the cosine similarity of a and b; 0 when their lengths
// differ or either is zero.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
