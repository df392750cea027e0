package sessions_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// record creates a session in dir with the given messages (user text,
// assistant text alternately) and returns its id.
func record(t *testing.T, s *sessions.Store, dir string, msgs ...providers.Message) string {
	t.Helper()
	ctx := context.Background()
	ss, err := s.Create(ctx, sessions.NewSession{Dir: dir, Model: "m"})
	must(t, err)
	rec := s.Recorder(ss.ID)
	for _, m := range msgs {
		must(t, rec.AppendMessage(ctx, m, providers.Usage{}))
	}
	return ss.ID
}

func user(text string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
}

func TestSearchFindsMessagesAndToolResultsOfTheProject(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	a := record(t, s, "/repo", user("we decided to deploy on Fridays"),
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
			providers.Reasoning{Text: "thinking about zebras"},
			providers.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"deploy.md"}`}}},
		providers.Message{Role: providers.RoleTool, Parts: []providers.Part{
			providers.ToolResult{CallID: "c1", Name: "read_file", Content: "the pipeline uses kubernetes"}}},
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
			providers.ToolCall{ID: "c2", Name: "memory_search", Arguments: `{"query":"kubernetes"}`}}},
	)
	record(t, s, "/repo/sub", user("kubernetes in the subdirectory"))
	record(t, s, "/repository", user("kubernetes in a sibling with a longer name"))

	hits, err := s.Search(ctx, "Kubernetes?", sessions.SearchOptions{Root: "/repo"})
	must(t, err)
	if len(hits) != 2 {
		t.Fatalf("hits %+v, want the tool result and the subdirectory's message", hits)
	}
	var dirs []string
	for _, h := range hits {
		dirs = append(dirs, h.Dir)
		if h.Score <= 0 {
			t.Errorf("score %v, want positive", h.Score)
		}
	}
	if !strings.Contains(strings.Join(dirs, " "), "/repo/sub") {
		t.Errorf("dirs %v", dirs)
	}
	for _, h := range hits {
		if h.SessionID == a && (h.Seq != 3 || h.Text != "the pipeline uses kubernetes") {
			t.Errorf("hit of session a: %+v", h)
		}
	}

	// Stemming: "deploying" finds "deploy"; reasoning is not indexed.
	hits, err = s.Search(ctx, "deploying", sessions.SearchOptions{})
	must(t, err)
	if len(hits) != 2 { // the user's message and the read_file call's arguments
		t.Errorf("deploying: %d hits %+v", len(hits), hits)
	}
	if hits, _ := s.Search(ctx, "zebras", sessions.SearchOptions{}); len(hits) != 0 {
		t.Errorf("reasoning was indexed: %+v", hits)
	}
	if hits, _ := s.Search(ctx, "kubernetes", sessions.SearchOptions{Exclude: a}); len(hits) != 2 {
		t.Errorf("excluding a: %+v", hits)
	}
	// FTS5 syntax in a query is only words.
	if _, err := s.Search(ctx, `"unbalanced AND (NEAR`, sessions.SearchOptions{}); err != nil {
		t.Errorf("query with FTS5 operators: %v", err)
	}
	if hits, err := s.Search(ctx, "what is the", sessions.SearchOptions{}); err != nil || hits != nil {
		t.Errorf("only common words: %v, %v", hits, err)
	}
}

func TestDeletedSessionIsNotFound(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	id := record(t, s, "/repo", user("the secret handshake is purple"))
	if hits, _ := s.Search(ctx, "handshake", sessions.SearchOptions{}); len(hits) != 1 {
		t.Fatalf("before delete: %+v", hits)
	}
	must(t, s.Delete(ctx, id))
	if hits, err := s.Search(ctx, "handshake", sessions.SearchOptions{}); err != nil || len(hits) != 0 {
		t.Errorf("after delete: %+v, %v", hits, err)
	}
	if n, err := s.Reindex(ctx); err != nil || n != 0 {
		t.Errorf("reindex: %d, %v", n, err)
	}
}

func TestMigrationIndexesExistingMessages(t *testing.T) {
	s := migrated(t, 7,
		`INSERT INTO sessions (id, dir, created_at, updated_at, message_count) VALUES ('aaaaaaaaaaaa', '/old', 1, 1, 1)`,
		`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES ('aaaaaaaaaaaa', 1, 'user', '[{"type":"text","text":"an ancient marmalade recipe"}]', 1)`)
	hits, err := s.Search(context.Background(), "marmalade", sessions.SearchOptions{Root: "/old"})
	must(t, err)
	if len(hits) != 1 || hits[0].SessionID != "aaaaaaaaaaaa" || hits[0].Seq != 1 {
		t.Fatalf("hits %+v", hits)
	}
	recs, err := s.MessageRange(context.Background(), "aaaaaaaaaaaa", 1, 1)
	must(t, err)
	if len(recs) != 1 {
		t.Errorf("message lost: %+v", recs)
	}
	if n, err := s.Reindex(context.Background()); err != nil || n != 1 {
		t.Errorf("reindex: %d, %v", n, err)
	}
	if hits, _ := s.Search(context.Background(), "marmalade", sessions.SearchOptions{}); len(hits) != 1 {
		t.Errorf("after reindex: %+v", hits)
	}
}

// Messages join the search index when a search or a store's close brings
// it up to date: a search finds what another process wrote and has not
// indexed, and a message whose id an earlier, deleted one had (the newest
// messages deleted, then one written) is found by its own words only.
func TestSearchFindsEveryMessageWrittenBeforeIt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	writer, reader := openAt(t, path), openAt(t, path)
	record(t, writer, "/repo", user("the first message"), user("the second message"))
	gone := record(t, writer, "/repo", user("alpaca grazing"))
	if hits, err := reader.Search(ctx, "alpaca", sessions.SearchOptions{}); err != nil || len(hits) != 1 {
		t.Fatalf("a message another store wrote: %+v, %v", hits, err)
	}
	must(t, writer.Delete(ctx, gone))
	record(t, writer, "/repo", user("zucchini bread"))
	for word, want := range map[string]int{"alpaca": 0, "zucchini": 1, "second": 1} {
		if hits, err := reader.Search(ctx, word, sessions.SearchOptions{}); err != nil || len(hits) != want {
			t.Errorf("%s: %d hits (%+v, %v), want %d", word, len(hits), hits, err, want)
		}
	}
	// Written by a store that closed before any search: indexed as it
	// closed, or by the next search.
	later := openAt(t, path)
	record(t, later, "/repo", user("quokka sighting"))
	later.Close()
	if hits, err := reader.Search(ctx, "quokka", sessions.SearchOptions{}); err != nil || len(hits) != 1 {
		t.Errorf("quokka: %+v, %v", hits, err)
	}
}
