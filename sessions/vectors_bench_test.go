package sessions_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// BenchmarkNearest10k measures the ranking by meaning of a memory search:
// 10,000 messages (100 sessions of 100, half in the searched project),
// each with a vector of 1,536 float32s (text-embedding-3-small's size),
// searched for the 12 nearest to a query vector. The process's first
// searches, before the vectors are in memory, are left out (see
// BenchmarkNearest10kFirst and BenchmarkLoadVectors10k).
func BenchmarkNearest10k(b *testing.B) {
	ctx := context.Background()
	st, q := nearestDB(b, filepath.Join(b.TempDir(), "agent.db"))
	defer st.Close()
	if err := st.LoadVectors(ctx, "m"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		hits, err := st.NearestMessages(ctx, "m", q, sessions.SearchOptions{Root: "/p0", Limit: 12})
		if err != nil || len(hits) != 12 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
}

// BenchmarkNearest10kFirst is a process's first search by meaning over the
// database of BenchmarkNearest10k: opening the store and the search, which
// reads its 5,000 vectors from SQLite (and starts loading them all in the
// background, which Close stops).
func BenchmarkNearest10kFirst(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "agent.db")
	st, q := nearestDB(b, path)
	st.Close()
	for b.Loop() {
		st, err := sessions.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		hits, err := st.NearestMessages(ctx, "m", q, sessions.SearchOptions{Root: "/p0", Limit: 12})
		if err != nil || len(hits) != 12 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
		b.StopTimer()
		closing := time.Now()
		st.Close()
		b.ReportMetric(float64(time.Since(closing).Milliseconds()), "close-ms")
		b.StartTimer()
	}
}

// BenchmarkLoadVectors10k loads the 10,000 vectors of BenchmarkNearest10k's
// database into memory, as the interface's background embedder does first.
func BenchmarkLoadVectors10k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "agent.db")
	st, _ := nearestDB(b, path)
	st.Close()
	for b.Loop() {
		st, err := sessions.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.LoadVectors(ctx, "m"); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

// nearestDB makes BenchmarkNearest10k's database at path and returns it
// open, with a query vector.
func nearestDB(b *testing.B, path string) (*sessions.Store, []float32) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	const dims = 1536
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	for s := range 100 {
		ss, err := st.Create(ctx, sessions.NewSession{Dir: fmt.Sprintf("/p%d/s%d", s%2, s)})
		if err != nil {
			b.Fatal(err)
		}
		for m := range 100 {
			err := st.Recorder(ss.ID).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
				Parts: []providers.Part{providers.Text{Text: fmt.Sprintf("message %d of session %d", m, s)}}}, providers.Usage{})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	for {
		ps, err := st.Unembedded(ctx, "m", 500)
		if err != nil {
			b.Fatal(err)
		}
		if len(ps) == 0 {
			break
		}
		vecs := map[int64][]float32{}
		for _, p := range ps {
			vecs[p.ID] = vec()
		}
		if err := st.PutVectors(ctx, "m", vecs); err != nil {
			b.Fatal(err)
		}
	}
	return st, vec()
}
