package sessions_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// benchWords is the vocabulary of the synthetic messages: word i occurs
// with a Zipf frequency, as words of real text do (the commonest word about
// 8% of all, most words rare).
const benchWords = 20000

func benchWord(i uint64) string { return fmt.Sprintf("w%x", i) }

// oldDatabase writes, at path, a database as an agent before migration 8
// left it (schema version 8, no search index) holding n messages: 1,000
// sessions of n/1,000 messages, user prompts of 10-40 words, assistant
// answers of 20-100, tool results of 50-250 (about 480 bytes a message on
// average), half the sessions under /proj. Session 0's message 1 holds
// "heliotrope". It returns the bytes of searchable text written.
func oldDatabase(b *testing.B, path string, n int) int64 {
	b.Helper()
	ctx := context.Background()
	s, err := sessions.Open(ctx, path)
	must(b, err)
	db := sessions.DB(s)
	for _, q := range []string{`DROP TRIGGER message_images_insert`, `DROP TRIGGER message_images_update`,
		`DROP TRIGGER message_images_delete`, `DROP TABLE message_images`, `DROP TABLE images`,
		`DROP TRIGGER messages_fts_mark`, `DROP TRIGGER messages_fts_delete`, `DROP TRIGGER messages_fts_update`,
		`DROP TABLE messages_fts`, `DROP VIEW message_text`, `DROP TABLE message_vectors`,
		`DROP TABLE checkpoint_rewinds`, `DROP TABLE checkpoints`, `ALTER TABLE sessions DROP COLUMN forked_at`,
		`DROP INDEX sessions_running`, `DROP TABLE fts_state`, `PRAGMA user_version = 8`} {
		_, err := db.ExecContext(ctx, q)
		must(b, err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.07, 2, benchWords-1)
	words := func(min, max int) string {
		var sb strings.Builder
		for i := range min + r.IntN(max-min+1) {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(benchWord(zipf.Uint64()))
		}
		return sb.String()
	}
	tx, err := db.BeginTx(ctx, nil)
	must(b, err)
	perSession := n / 1000
	var text int64
	now := time.Now().UnixMilli()
	for si := range 1000 {
		id := fmt.Sprintf("%012x", si)
		dir := "/proj"
		switch {
		case si%2 == 1:
			dir = fmt.Sprintf("/other%d", si%7)
		case si%4 == 2:
			dir = "/proj/sub"
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, dir, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, ?)`,
			id, dir, now, now, perSession)
		must(b, err)
		for seq := 1; seq <= perSession; seq++ {
			var role, body string
			var parts any
			switch seq % 4 {
			case 1:
				role, body = "user", words(10, 40)
				if si == 0 && seq == 1 {
					body = "the staging cluster is called heliotrope " + body
				}
				parts = []map[string]any{{"type": "text", "text": body}}
			case 2:
				role, body = "assistant", words(20, 100)
				parts = []map[string]any{{"type": "text", "text": body}}
			case 3:
				role, body = "tool", words(50, 250)
				parts = []map[string]any{{"type": "tool_result", "call_id": "c", "name": "grep", "content": body}}
			default:
				role, body = "assistant", words(20, 100)
				parts = []map[string]any{{"type": "text", "text": body}}
			}
			text += int64(len(body))
			js, _ := json.Marshal(parts)
			_, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES (?, ?, ?, ?, ?)`,
				id, seq, role, string(js), now)
			must(b, err)
		}
	}
	must(b, tx.Commit())
	_, err = db.ExecContext(ctx, `VACUUM`)
	must(b, err)
	must(b, s.Close())
	return text
}

// usedBytes is the size of the database's pages in use.
func usedBytes(b *testing.B, db *sql.DB) int64 {
	b.Helper()
	var pages, free, size int64
	must(b, db.QueryRow(`PRAGMA page_count`).Scan(&pages))
	must(b, db.QueryRow(`PRAGMA freelist_count`).Scan(&free))
	must(b, db.QueryRow(`PRAGMA page_size`).Scan(&size))
	return (pages - free) * size
}

// BenchmarkSearch100k measures the search index on 100,000 messages: its
// one-time build when a database from before it is first opened (reported
// as index-build-s), its size against the text it indexes (index-growth,
// goal <= 1.5), and searches of this project's sessions (goal <= 50 ms
// each): a rare word, two common words, and a question of several words.
// Set AGENT_BENCH_MESSAGES to change the 100,000.
func BenchmarkSearch100k(b *testing.B) {
	n := 100000
	if v := os.Getenv("AGENT_BENCH_MESSAGES"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "agent.db")
	text := oldDatabase(b, path, n)
	raw, err := sql.Open("sqlite", path)
	must(b, err)
	before := usedBytes(b, raw)
	must(b, raw.Close())

	start := time.Now()
	s, err := sessions.Open(ctx, path) // migration 8 builds the index
	must(b, err)
	build := time.Since(start)
	defer s.Close()
	_, err = sessions.DB(s).ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	must(b, err)
	growth := float64(usedBytes(b, sessions.DB(s))-before) / float64(text)
	b.Logf("%d messages, %.1f MB of text; index built in %v; database grew by %.2fx the text", n, float64(text)/1e6, build, growth)

	hits, err := s.Search(ctx, "staging cluster name", sessions.SearchOptions{Root: "/proj", Limit: 6})
	must(b, err)
	if len(hits) == 0 || !strings.Contains(hits[0].Text, "heliotrope") {
		b.Fatalf("the fact is not the first hit: %+v", hits)
	}
	for _, q := range []struct{ name, query string }{
		{"rare-word", benchWord(15000)},
		{"common-words", benchWord(2) + " " + benchWord(3)},
		{"question", "what did we decide about the " + benchWord(40) + " " + benchWord(900) + " " + benchWord(7000) + " pipeline"},
	} {
		b.Run(q.name, func(b *testing.B) {
			var took []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Search(ctx, q.query, sessions.SearchOptions{Root: "/proj", Limit: 12}); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			reportPercentiles(b, took)
			// The machine is shared: the process's CPU time per search says
			// what a search costs apart from the wait for a core.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
			b.ReportMetric(build.Seconds(), "index-build-s")
			b.ReportMetric(growth, "index-growth")
		})
	}
}
