package sessions_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// versionSeven writes a database as an agent before the search index left
// it, with n messages in one session under /old: message i says "word<i>",
// the first and the last also "marmalade".
func versionSeven(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.db")
	db, err := sql.Open("sqlite", path)
	must(t, err)
	defer db.Close()
	for v := range 7 {
		_, err := db.Exec(sessions.SchemaStep(v))
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 7`)
	must(t, err)
	_, err = db.Exec(`INSERT INTO sessions (id, dir, created_at, updated_at, message_count) VALUES ('aaaaaaaaaaaa', '/old', 1, 1, ?)`, n)
	must(t, err)
	tx, err := db.Begin()
	must(t, err)
	for i := 1; i <= n; i++ {
		text := fmt.Sprintf("word%d", i)
		if i == 1 || i == n {
			text += " marmalade"
		}
		_, err := tx.Exec(`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES ('aaaaaaaaaaaa', ?, 'user', ?, 1)`,
			i, `[{"type":"text","text":"`+text+`"}]`)
		must(t, err)
	}
	must(t, tx.Commit())
	return path
}

// The first open after the upgrade builds the index of the messages
// already stored in batches, telling its progress; every message is found.
func TestFirstOpenBuildsTheIndexWithProgress(t *testing.T) {
	ctx := context.Background()
	path := versionSeven(t, 1200)
	var steps [][2]int
	s, err := sessions.OpenWith(ctx, path, sessions.Options{IndexBatch: 500, IndexProgress: func(done, total int) {
		steps = append(steps, [2]int{done, total})
	}})
	must(t, err)
	defer s.Close()
	if len(steps) < 3 || steps[0] != [2]int{0, 1200} || steps[len(steps)-1] != [2]int{1200, 1200} {
		t.Fatalf("progress %v: want 0 of 1200 first, 1200 of 1200 last, batches between", steps)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i][0] <= steps[i-1][0] {
			t.Errorf("progress went back: %v", steps)
		}
	}
	hits, err := s.Search(ctx, "marmalade", sessions.SearchOptions{Root: "/old"})
	must(t, err)
	if len(hits) != 2 {
		t.Fatalf("marmalade: %d hits, want the first and the last message", len(hits))
	}
	for _, w := range []string{"word1", "word200", "word201", "word700", "word701", "word1200"} {
		if hits, err := s.Search(ctx, w, sessions.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("%s: %d hits, %v", w, len(hits), err)
		}
	}
	// Later opens have nothing to build.
	s2, err := sessions.OpenWith(ctx, path, sessions.Options{IndexBatch: 500, IndexProgress: func(done, total int) {
		t.Errorf("progress %d of %d on a later open", done, total)
	}})
	must(t, err)
	s2.Close()
}

// An open cancelled while it builds the index fails, loses nothing, and
// the next open finishes the index.
func TestInterruptedIndexBuildGoesOnAtTheNextOpen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	path := versionSeven(t, 1200)
	_, err := sessions.OpenWith(ctx, path, sessions.Options{IndexBatch: 500, IndexProgress: func(done, total int) {
		if done > 0 {
			cancel() // after the first batch
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "search index") {
		t.Fatalf("cancelled open: %v, want an error about the index", err)
	}
	var steps [][2]int
	s, err := sessions.OpenWith(context.Background(), path, sessions.Options{IndexBatch: 500, IndexProgress: func(done, total int) {
		steps = append(steps, [2]int{done, total})
	}})
	must(t, err)
	defer s.Close()
	if len(steps) == 0 || steps[0][1] >= 1200 {
		t.Errorf("the second open started again from the top: %v", steps)
	}
	for _, w := range []string{"word1", "word700", "word1200"} {
		if hits, err := s.Search(context.Background(), w, sessions.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("%s: %d hits, %v", w, len(hits), err)
		}
	}
	recs, err := s.MessageRange(context.Background(), "aaaaaaaaaaaa", 1, 1200)
	must(t, err)
	if len(recs) != 1200 {
		t.Errorf("%d messages after the interrupted build, want 1200", len(recs))
	}
}
