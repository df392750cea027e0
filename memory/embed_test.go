package memory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
)

// embeddingsServer serves the scripted model's embeddings with opts and
// counts the embeddings requests.
func embeddingsServer(t testing.TB, opts scripted.Options) (url string, requests *atomic.Int64) {
	t.Helper()
	h := scripted.NewHandler(opts)
	requests = new(atomic.Int64)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scripted.IsEmbeddingsRequest(r) {
			requests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1", requests
}

func sources(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Passage + " | ")
	}
	return b.String()
}

func TestSearchFindsByMeaningWhatKeywordsMiss(t *testing.T) {
	f := newFixture(t)
	f.session(t, f.root, "We moved the database to PostgreSQL 16 last week.",
		"The deploy pipeline runs on Fridays.", "Lunch was pizza again.")
	ctx := context.Background()
	m := f.memory(f.root, day)
	rs, err := m.Search(ctx, "postgres upgrade", SearchOptions{})
	must(t, err)
	if strings.Contains(sources(rs), "PostgreSQL") {
		t.Fatalf("keywords alone found the passage, the test proves nothing: %s", sources(rs))
	}

	url, _ := embeddingsServer(t, scripted.Options{})
	m.UseEmbeddings(NewEmbedder(url, "", "", nil))
	n, err := m.EmbedPending(ctx)
	must(t, err)
	if n != 3 {
		t.Fatalf("embedded %d messages, want 3", n)
	}
	rs, err = m.Search(ctx, "postgres upgrade", SearchOptions{})
	must(t, err)
	if len(rs) == 0 || !strings.Contains(rs[0].Passage, "PostgreSQL") {
		t.Fatalf("with embeddings the first result is not the PostgreSQL passage: %s", sources(rs))
	}
	// A keyword hit still counts: "deploy" is found, first.
	rs, err = m.Search(ctx, "deploy", SearchOptions{})
	must(t, err)
	if len(rs) == 0 || !strings.Contains(rs[0].Passage, "deploy pipeline") {
		t.Fatalf("the keyword hit is not first with embeddings on: %s", sources(rs))
	}
	if n, err := m.EmbedPending(ctx); err != nil || n != 0 {
		t.Fatalf("a second pass embedded %d messages (%v), want 0", n, err)
	}
}

func TestSearchWithoutAnEmbeddingsEndpointUsesKeywordsAndStopsAsking(t *testing.T) {
	f := newFixture(t)
	f.session(t, f.root, "The deploy pipeline runs on Fridays.")
	ctx := context.Background()
	url, requests := embeddingsServer(t, scripted.Options{NoEmbeddings: true})
	m := f.memory(f.root, day)
	e := NewEmbedder(url, "", "", nil)
	m.UseEmbeddings(e)
	if _, err := m.EmbedPending(ctx); !errors.Is(err, ErrEmbeddingsOff) {
		t.Fatalf("EmbedPending against a 404: %v, want ErrEmbeddingsOff", err)
	}
	if off, why := e.Off(); !off || !strings.Contains(why, "404") {
		t.Fatalf("embedder off=%v (%s) after a 404", off, why)
	}
	asked := requests.Load()
	for range 2 {
		rs, err := m.Search(ctx, "deploy", SearchOptions{})
		must(t, err)
		if len(rs) != 1 || !strings.Contains(rs[0].Passage, "deploy pipeline") {
			t.Fatalf("keyword search without embeddings: %s", sources(rs))
		}
	}
	if got := requests.Load(); got != asked {
		t.Errorf("%d more embeddings requests after the endpoint answered 404", got-asked)
	}
	stop := m.StartEmbedding(ctx) // ends at once: the embedder is off
	stop()
}

func TestNothingWaitsForASlowEmbeddingsEndpoint(t *testing.T) {
	f := newFixture(t)
	f.session(t, f.root, "The deploy pipeline runs on Fridays.")
	ctx := context.Background()
	started := make(chan struct{}, 8)
	url, _ := embeddingsServer(t, scripted.Options{OnEmbeddings: func(rctx context.Context, _ []string) {
		started <- struct{}{}
		<-rctx.Done() // never answers
	}})
	m := f.memory(f.root, day)
	m.UseEmbeddings(NewEmbedder(url, "", "", nil))
	m.queryTimeout = 50 * time.Millisecond
	stop := m.StartEmbedding(ctx) // returns at once
	<-started                     // the background indexer is stuck in its request
	rs, err := m.Search(ctx, "deploy", SearchOptions{})
	must(t, err)
	if len(rs) != 1 || !strings.Contains(rs[0].Passage, "deploy pipeline") {
		t.Fatalf("search while the endpoint hangs: %s", sources(rs))
	}
	stop() // cancels the stuck request and waits for the indexer
}

func TestSearchAndGetMaskSecrets(t *testing.T) {
	f := newFixture(t)
	id := f.session(t, f.root, "set the deploy token: GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 and DB postgres://bob:hunter22@db.internal/app")
	ctx := context.Background()
	m := f.memory(f.root, day)
	rs, err := m.Search(ctx, "deploy token", SearchOptions{})
	must(t, err)
	got, err := m.Get(ctx, id, 0)
	must(t, err)
	for what, text := range map[string]string{"memory_search": sources(rs), "memory_get": got} {
		if strings.Contains(text, "ghp_abc") || strings.Contains(text, "hunter22") {
			t.Errorf("%s shows a secret: %s", what, text)
		}
		if !strings.Contains(text, "[secret masked]") || !strings.Contains(text, "postgres://bob:") {
			t.Errorf("%s does not say what was masked: %s", what, text)
		}
	}
}
