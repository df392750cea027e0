package memory

import (
	"math"
	"strings"
)

// BM25's parameters, as SQLite FTS5 sets them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25 scores each chunk against the query's stems with Okapi BM25 (the
// ranking FTS5's bm25() computes for the sessions), counting a chunk word
// that starts with a stem as an occurrence of it. A chunk without any stem
// scores 0.
func bm25(chunks []chunk, terms []string) []float64 {
	scores := make([]float64, len(chunks))
	if len(chunks) == 0 || len(terms) == 0 {
		return scores
	}
	total := 0
	for _, c := range chunks {
		total += len(c.words)
	}
	avg := float64(total) / float64(len(chunks))
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		tf := make([]int, len(chunks))
		n := 0
		for i, c := range chunks {
			for _, w := range c.words {
				if strings.HasPrefix(w, t) {
					tf[i]++
				}
			}
			if tf[i] > 0 {
				n++
			}
		}
		if n == 0 {
			continue
		}
		N := float64(len(chunks))
		idf := math.Log((N-float64(n)+0.5)/(float64(n)+0.5) + 1)
		for i, c := range chunks {
			if tf[i] == 0 {
				continue
			}
			f := float64(tf[i])
			scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(len(c.words))/avg))
		}
	}
	return scores
}
