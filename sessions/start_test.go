package sessions_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// Start hands out the store while its open goes on (here: the build of an
// older database's search index, held at its first step), and a query made
// meanwhile waits for the open: it finds what the open built.
func TestStartReturnsBeforeTheOpenAndQueriesWaitForIt(t *testing.T) {
	ctx := context.Background()
	path := versionSeven(t, 300)
	inOpen, release := make(chan struct{}), make(chan struct{})
	held := false
	s, err := sessions.Start(ctx, path, sessions.Options{IndexBatch: 100, IndexProgress: func(done, total int) {
		if held {
			return
		}
		held = true
		close(inOpen)
		select {
		case <-release:
		case <-time.After(time.Minute):
			t.Error("the open was held for a minute: Start waited for it")
		}
	}})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	<-inOpen // Start returned while the open is held

	type result struct {
		hits []sessions.Hit
		err  error
	}
	searched := make(chan result, 1)
	go func() {
		hits, err := s.Search(ctx, "word1", sessions.SearchOptions{})
		searched <- result{hits, err}
	}()
	close(release)
	r := <-searched
	if r.err != nil || len(r.hits) != 1 {
		t.Fatalf("search made during the open: %d hits, %v; want the one the open indexed", len(r.hits), r.err)
	}
	must(t, s.Ready(ctx))
}

// An open that fails after Start returned says why in Ready, and the
// store's queries fail rather than wait.
func TestReadyTellsWhyTheOpenFailed(t *testing.T) {
	ctx := context.Background()
	path := versionSeven(t, 10)
	db, err := sessions.Open(ctx, path) // migrate it, then make it newer than this build
	must(t, err)
	_, err = sessions.DB(db).Exec(`PRAGMA user_version = 999`)
	must(t, err)
	must(t, db.Close())

	s, err := sessions.Start(ctx, path, sessions.Options{})
	must(t, err)
	if err := s.Ready(ctx); err == nil || !errors.Is(err, sessions.ErrNewerSchema) {
		t.Fatalf("Ready: %v, want ErrNewerSchema", err)
	}
	if _, err := s.List(ctx, sessions.ListOptions{}); err == nil {
		t.Fatal("a query of a store whose open failed succeeded")
	}
	must(t, s.Close())
}

// A write made while a new database is still being created and migrated
// waits for the open, which writes too, and then lands.
func TestAWriteMadeDuringTheOpenWaitsForIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := sessions.Start(ctx, filepath.Join(t.TempDir(), "agent.db"), sessions.Options{})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	ss, err := s.Create(ctx, sessions.NewSession{Dir: "/new", Title: "early"})
	if err != nil {
		t.Fatalf("a session created as the store opens: %v", err)
	}
	if got, err := s.Get(ctx, ss.ID); err != nil || got.Title != "early" {
		t.Fatalf("the session: %+v, %v", got, err)
	}
}
