package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
)

// BenchmarkSearch2k measures memory_search's Search over 2,000 messages
// (20 sessions of 100) by keywords only and with embeddings from the
// scripted server on 127.0.0.1 (256-dimension vectors; the query's
// embedding is one HTTP round trip).
func BenchmarkSearch2k(b *testing.B) {
	f := newFixture(b)
	for s := range 20 {
		texts := make([]string, 100)
		for i := range texts {
			texts[i] = fmt.Sprintf("session %d step %d: ran the deploy pipeline for service%d and checked the postgres%d logs", s, i, i%37, i%11)
		}
		f.session(b, f.root, texts...)
	}
	ctx := context.Background()
	for _, mode := range []string{"keywords", "embeddings"} {
		b.Run(mode, func(b *testing.B) {
			m := f.memory(f.root, time.Now())
			if mode == "embeddings" {
				url, _ := embeddingsServer(b, scripted.Options{})
				m.UseEmbeddings(NewEmbedder(url, "", "", nil))
				if n, err := m.EmbedPending(ctx); err != nil {
					b.Fatalf("embedded %d: %v", n, err)
				}
			}
			for b.Loop() {
				if rs, err := m.Search(ctx, "postgres logs service12", SearchOptions{}); err != nil || len(rs) == 0 {
					b.Fatalf("%d results: %v", len(rs), err)
				}
			}
		})
	}
}
