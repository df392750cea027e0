package sessions_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// BenchmarkNearest10k measures the ranking by meaning of a memory search:
// 10,000 messages (100 sessions of 100, half in the searched project),
// each with a vector of 1,536 float32s (text-embedding-3-small's size),
// searched for the 12 nearest to a query vector.
func BenchmarkNearest10k(b *testing.B) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, filepath.Join(b.TempDir(), "agent.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
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
	q := vec()
	b.ResetTimer()
	for b.Loop() {
		hits, err := st.NearestMessages(ctx, "m", q, sessions.SearchOptions{Root: "/p0", Limit: 12})
		if err != nil || len(hits) != 12 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
}
