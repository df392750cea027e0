package sessions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

func TestNearestMessagesRanksByCosineWithinScopeAndForgetsDeletedSessions(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	add := func(dir string, texts ...string) string {
		ss, err := st.Create(ctx, sessions.NewSession{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			err := st.Recorder(ss.ID).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
				Parts: []providers.Part{providers.Text{Text: text}}}, providers.Usage{})
			if err != nil {
				t.Fatal(err)
			}
		}
		return ss.ID
	}
	here := add("/proj", "north", "east")
	add("/other", "north too")
	ps, err := st.Unembedded(ctx, "m", 10)
	if err != nil || len(ps) != 3 {
		t.Fatalf("Unembedded: %d passages, %v; want 3", len(ps), err)
	}
	vecs := map[int64][]float32{}
	for _, p := range ps {
		switch p.Text {
		case "north", "north too":
			vecs[p.ID] = []float32{1, 0.1}
		case "east":
			vecs[p.ID] = []float32{0, 1}
		}
	}
	if err := st.PutVectors(ctx, "m", vecs); err != nil {
		t.Fatal(err)
	}
	if ps, _ := st.Unembedded(ctx, "m", 10); len(ps) != 0 {
		t.Fatalf("%d passages left to embed after PutVectors", len(ps))
	}
	if ps, _ := st.Unembedded(ctx, "other-model", 10); len(ps) != 3 {
		t.Fatalf("another model has %d passages to embed, want 3", len(ps))
	}
	hits, err := st.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{Root: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Text != "north" || hits[1].Text != "east" || hits[0].Score <= hits[1].Score {
		t.Fatalf("nearest in /proj: %+v", hits)
	}
	if err := st.Delete(ctx, here); err != nil {
		t.Fatal(err)
	}
	hits, err = st.NearestMessages(ctx, "m", []float32{1, 0}, sessions.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Text != "north too" {
		t.Fatalf("after deleting the session: %+v, %v", hits, err)
	}
}
