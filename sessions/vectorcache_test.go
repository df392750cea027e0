package sessions_test

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// The vectors a search compares are held in memory: what another process
// (another Store on the same file) stores or deletes after this one's
// first search is seen by its next search.
func TestNearestMessagesSeesAnotherProcesssVectorsAndDeletions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	a, err := sessions.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sessions.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	say := func(st *sessions.Store, id, text string) {
		err := st.Recorder(id).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
			Parts: []providers.Part{providers.Text{Text: text}}}, providers.Usage{})
		if err != nil {
			t.Fatal(err)
		}
	}
	embed := func(st *sessions.Store, vec map[string][]float32) {
		ps, err := st.Unembedded(ctx, "m", 100)
		if err != nil {
			t.Fatal(err)
		}
		vecs := map[int64][]float32{}
		for _, p := range ps {
			vecs[p.ID] = vec[p.Text]
		}
		if err := st.PutVectors(ctx, "m", vecs); err != nil {
			t.Fatal(err)
		}
	}
	s1, _ := a.Create(ctx, sessions.NewSession{Dir: "/p"})
	say(a, s1.ID, "east")
	embed(a, map[string][]float32{"east": {0, 1}})
	must(t, a.LoadVectors(ctx, "m"))
	hits, err := a.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Text != "east" {
		t.Fatalf("first search: %+v, %v", hits, err)
	}
	// Another process records and embeds a message nearer the query.
	s2, _ := b.Create(ctx, sessions.NewSession{Dir: "/p"})
	say(b, s2.ID, "north")
	embed(b, map[string][]float32{"north": {1, 0}})
	hits, err = a.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	if err != nil || len(hits) != 2 || hits[0].Text != "north" {
		t.Fatalf("after another process embedded north: %+v, %v", hits, err)
	}
	// This process embeds a message: found without a reload.
	say(a, s1.ID, "north-east")
	embed(a, map[string][]float32{"north-east": {1, 1}})
	hits, _ = a.NearestMessages(ctx, "m", []float32{1, 0.9}, sessions.SearchOptions{})
	if len(hits) != 3 || hits[0].Text != "north-east" {
		t.Fatalf("after this process embedded north-east: %+v", hits)
	}
	// Another process deletes a session: its messages are not found.
	if err := b.Delete(ctx, s2.ID); err != nil {
		t.Fatal(err)
	}
	hits, _ = a.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	if len(hits) != 2 || hits[0].Text == "north" || hits[1].Text == "north" {
		t.Fatalf("after another process deleted north's session: %+v", hits)
	}
}

// The first search, before the vectors are in memory, reads them from
// SQLite and starts loading them; the next ones find the same, from
// memory, with scores within 0.01.
func TestFirstSearchReadsTheDatabaseAndLaterOnesMemory(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, filepath.Join(t.TempDir(), "agent.db"))
	must(t, err)
	defer st.Close()
	ss, _ := st.Create(ctx, sessions.NewSession{Dir: "/p"})
	for _, text := range []string{"north", "east", "west"} {
		err := st.Recorder(ss.ID).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
			Parts: []providers.Part{providers.Text{Text: text}}}, providers.Usage{})
		must(t, err)
	}
	ps, _ := st.Unembedded(ctx, "m", 10)
	dirs := map[string][]float32{"north": {0, 1}, "east": {1, 0.1}, "west": {-1, 0.2}}
	vecs := map[int64][]float32{}
	for _, p := range ps {
		vecs[p.ID] = dirs[p.Text]
	}
	must(t, st.PutVectors(ctx, "m", vecs))
	cold, err := st.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	must(t, err)
	must(t, st.LoadVectors(ctx, "m"))
	warm, err := st.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	must(t, err)
	if len(cold) != 3 || len(warm) != 3 {
		t.Fatalf("cold %+v, warm %+v", cold, warm)
	}
	for i := range cold {
		if cold[i].Text != warm[i].Text || math.Abs(cold[i].Score-warm[i].Score) > 0.01 {
			t.Errorf("hit %d: cold %q %.4f, warm %q %.4f", i, cold[i].Text, cold[i].Score, warm[i].Text, warm[i].Score)
		}
	}
	if cold[0].Text != "east" || cold[2].Text != "west" {
		t.Errorf("order %q %q %q", cold[0].Text, cold[1].Text, cold[2].Text)
	}
}

// Quantised to int8, the scores stay within 0.01 of the exact cosine
// similarity, and the order of clearly different scores is kept.
func TestNearestMessagesScoresAreCloseToExactCosine(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, _ := st.Create(ctx, sessions.NewSession{Dir: "/p"})
	rng := rand.New(rand.NewPCG(3, 4))
	const dims = 768
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for range 50 {
		err := st.Recorder(ss.ID).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
			Parts: []providers.Part{providers.Text{Text: "x"}}}, providers.Usage{})
		if err != nil {
			t.Fatal(err)
		}
	}
	ps, _ := st.Unembedded(ctx, "m", 100)
	vecs := map[int64][]float32{}
	q := vec()
	for i, p := range ps {
		v := vec()
		for j := range v { // make the similarities spread from about -0.5 to 1
			v[j] = v[j]*float32(i)/50 + q[j]*float32(50-i)/50*(1-2*float32(i%2)/3)
		}
		vecs[p.ID] = v
	}
	if err := st.PutVectors(ctx, "m", vecs); err != nil {
		t.Fatal(err)
	}
	must(t, st.LoadVectors(ctx, "m"))
	hits, err := st.NearestMessages(ctx, "m", q, sessions.SearchOptions{Limit: 50})
	if err != nil || len(hits) != 50 {
		t.Fatalf("%d hits, %v", len(hits), err)
	}
	// Messages of one session: the row ids rise with Seq.
	ids := slices.Sorted(maps.Keys(vecs))
	exact := map[int]float64{}
	for n, id := range ids {
		v := vecs[id]
		var dot, a, b float64
		for j := range v {
			dot += float64(v[j]) * float64(q[j])
			a += float64(v[j]) * float64(v[j])
			b += float64(q[j]) * float64(q[j])
		}
		exact[n+1] = dot / math.Sqrt(a*b)
	}
	for i, h := range hits {
		if d := math.Abs(h.Score - exact[h.Seq]); d > 0.01 {
			t.Errorf("hit %d: score %.4f, exact %.4f", i, h.Score, exact[h.Seq])
		}
		if i > 0 && exact[hits[i-1].Seq] < exact[h.Seq]-0.02 {
			t.Errorf("hit %d (exact %.4f) ranks after a worse one (exact %.4f)", i, exact[h.Seq], exact[hits[i-1].Seq])
		}
	}
}
