package memory

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// The memory files are searched by meaning too: a note keywords miss is
// found once embeddings are on; its chunks are embedded with the first
// query that meets them, once.
func TestMemoryFilesAreSearchedByMeaning(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.memory(f.root, day)
	path, err := m.EnsureLongTerm()
	must(t, err)
	must(t, os.WriteFile(path, []byte("- We moved the database to PostgreSQL 16 last week.\n\n- Lunch was pizza again.\n\n- The deploy pipeline runs on Fridays.\n"), 0o600))
	rs, err := m.Search(ctx, "databse", SearchOptions{})
	must(t, err)
	if strings.Contains(sources(rs), "PostgreSQL") {
		t.Fatalf("keywords alone found the note, the test proves nothing: %s", sources(rs))
	}
	var mu sync.Mutex
	var sent [][]string
	url, _ := embeddingsServer(t, scripted.Options{OnEmbeddings: func(_ context.Context, inputs []string) {
		mu.Lock()
		sent = append(sent, inputs)
		mu.Unlock()
	}})
	m.UseEmbeddings(NewEmbedder(url, "", "", nil))
	rs, err = m.Search(ctx, "databse", SearchOptions{})
	must(t, err)
	if len(rs) == 0 || !strings.Contains(rs[0].Passage, "PostgreSQL") || !strings.HasPrefix(rs[0].Source, "MEMORY.md:") {
		t.Fatalf("with embeddings the first result is not the PostgreSQL note: %s", sources(rs))
	}
	rs, err = m.Search(ctx, "deploy", SearchOptions{})
	must(t, err)
	if len(rs) == 0 || !strings.Contains(rs[0].Passage, "deploy pipeline") {
		t.Fatalf("the keyword hit is not first with embeddings on: %s", sources(rs))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) < 2 || len(sent[0]) != 4 || len(sent[1]) != 1 {
		t.Errorf("embeddings requests %q: want the query and the three notes, then the query alone", sent)
	}
}
