package headless

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A fact stated in one session is found by memory_search in a new session
// (not a continued one) and memory_get returns the messages around it.
func TestMemorySearchFindsAFactOfAnEarlierSession(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	first := scripted.New(t, scripted.Text("Noted: heliotrope-7."))
	r := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(first, "--db", db, "--output-format", "json", "-p",
		"our staging cluster is called heliotrope-7")})
	id := e2e.SessionIDOf(t, r.Stdout)

	second := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s1", Name: "memory_search", Arguments: `{"query":"what is the staging cluster called"}`}),
		scripted.ToolCalls(scripted.Call{ID: "g1", Name: "memory_get", Arguments: `{"key":"` + id + `:1"}`}),
		scripted.Text("It is heliotrope-7."),
	)
	r = e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(second, "--db", db, "-p", "which staging cluster do we use?")})
	if r.Stdout != "It is heliotrope-7.\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	reqs := second.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	found := e2e.ToolResults(reqs[1])["s1"]
	if !strings.Contains(found, "session "+id+" message 1 (user") || !strings.Contains(found, "heliotrope-7") ||
		!strings.Contains(found, "key "+id+":1") {
		t.Errorf("memory_search result:\n%s", found)
	}
	// The session asking is not searched: its own prompt is not a result.
	if strings.Contains(found, "which staging cluster") {
		t.Errorf("the current session was searched:\n%s", found)
	}
	got := e2e.ToolResults(reqs[2])["g1"]
	if !strings.Contains(got, "[1] user") || !strings.Contains(got, "our staging cluster is called heliotrope-7") ||
		!strings.Contains(got, "[2] assistant") || !strings.Contains(got, "Noted: heliotrope-7.") {
		t.Errorf("memory_get result:\n%s", got)
	}

	// The same from the shell.
	r = e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "search", "heliotrope"}})
	if !strings.Contains(r.Stdout, "session "+id+" message 1") {
		t.Errorf("agent memory search:\n%s", r.Stdout)
	}
}

// A prompt that starts with "#" is saved to MEMORY.md, not sent; the next
// session's first request carries it in its system prompt.
func TestHashNoteLandsInMemoryAndTheNextSession(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	srv := scripted.New(t, scripted.Text("Bonjour."))
	r := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "# always answer in French")})
	if len(srv.Requests()) != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "saved to memory") {
		t.Fatalf("the note was sent: %d requests, stdout %q, stderr %q", len(srv.Requests()), r.Stdout, r.Stderr)
	}
	mem := strings.TrimSpace(e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "path"}}).Stdout)
	data, err := os.ReadFile(filepath.Join(mem, "MEMORY.md"))
	if err != nil || string(data) != "- always answer in French\n" {
		t.Fatalf("MEMORY.md: %q, %v", data, err)
	}
	if !strings.HasPrefix(mem, filepath.Dir(db)) {
		t.Errorf("memory %s is not beside the database %s", mem, db)
	}
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "hi")})
	system := srv.Requests()[0].Chat.Messages[0]
	if system.Role != "system" || !strings.Contains(system.Text(), "<memory>\n- always answer in French\n</memory>") {
		t.Errorf("system prompt:\n%s", system.Text())
	}
}

// An empty MEMORY.md adds nothing: the first request for "hi" is the same
// size as with no memory at all.
func TestEmptyMemoryLeavesTheFirstRequestUnchanged(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	srv := scripted.New(t, scripted.Text("Hello."), scripted.Text("Hello."))
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "hi")})
	mem := strings.TrimSpace(e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "path"}}).Stdout)
	if err := os.MkdirAll(mem, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mem, "MEMORY.md"), []byte("\n  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "hi")})
	reqs := srv.Requests()
	if len(reqs[0].Body) != len(reqs[1].Body) {
		t.Errorf("first request: %d bytes without MEMORY.md, %d with an empty one", len(reqs[0].Body), len(reqs[1].Body))
	}
	if strings.Contains(reqs[1].Chat.Messages[0].Text(), "<memory>") {
		t.Errorf("an empty MEMORY.md reached the system prompt")
	}
}

// A database written before the search index existed (schema version 8)
// is indexed when the agent first opens it, with every message kept; a
// session deleted afterwards is no longer found.
func TestOldDatabaseIsIndexedAndDeletedSessionsAreNotFound(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	srv := scripted.New(t, scripted.Text("Fine."), scripted.Text("Fine."))
	keep := e2e.SessionIDOf(t, e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--output-format", "json", "-p", "the mascot is a capybara")}).Stdout)
	gone := e2e.SessionIDOf(t, e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--output-format", "json", "-p", "the capybara eats melons")}).Stdout)

	// Take the database back to version 8, as an agent before the index
	// left it.
	sdb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER message_images_insert`, `DROP TRIGGER message_images_update`,
		`DROP TRIGGER message_images_delete`, `DROP TABLE message_images`, `DROP TRIGGER messages_fts_mark`, `DROP TRIGGER messages_fts_delete`, `DROP TRIGGER messages_fts_update`,
		`DROP TABLE messages_fts`, `DROP VIEW message_text`, `DROP TABLE message_vectors`, `DROP TABLE images`,
		`DROP TABLE checkpoint_rewinds`, `DROP TABLE checkpoints`, `ALTER TABLE sessions DROP COLUMN forked_at`, `DROP INDEX sessions_running`, `DROP TABLE fts_state`, `PRAGMA user_version = 8`} {
		if _, err := sdb.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func() (n int) {
		if err := sdb.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	if before != 4 {
		t.Fatalf("%d messages stored, want 4", before)
	}

	r := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "search", "capybara"}})
	if !strings.Contains(r.Stdout, "2 results") || !strings.Contains(r.Stdout, keep) || !strings.Contains(r.Stdout, gone) {
		t.Errorf("search of the old database:\n%s", r.Stdout)
	}
	// The build is said on stderr (not a terminal here: a line as it
	// starts and one as it ends), and only the first time.
	if !strings.Contains(r.Stderr, "building the search index of past sessions (once, after an upgrade): 4 messages") ||
		!strings.Contains(r.Stderr, "search index built: 4 messages") {
		t.Errorf("the index build was not shown on stderr: %q", r.Stderr)
	}
	if after := count(); after != before {
		t.Errorf("%d messages after indexing, %d before", after, before)
	}
	var v int
	if err := sdb.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v < 8 {
		t.Errorf("schema version %d, %v", v, err)
	}
	sdb.Close()

	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "delete", gone}})
	r = e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "search", "capybara"}})
	if strings.Contains(r.Stderr, "search index") {
		t.Errorf("a later run builds the index again: %q", r.Stderr)
	}
	if !strings.Contains(r.Stdout, "1 result ") || strings.Contains(r.Stdout, gone) {
		t.Errorf("after deleting %s:\n%s", gone, r.Stdout)
	}
	r = e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "memory", "reindex"}})
	if r.Stdout != "indexed 2 messages\n" {
		t.Errorf("reindex: %q", r.Stdout)
	}
}

// In swap mode (where a pick changes the tools array, and picks go by
// group) the memory tools are a pick group of their own: picking the file
// tools does not bring their schemas, and picking memory_search brings
// memory_get and memory_write with it. (Pick mode never changes the tools:
// a pick loads only what it names.)
func TestMemoryToolsArePickedApart(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "p1", Name: "pick_tools", Arguments: `{"names":["read_file"]}`}),
		scripted.Text("Picked."),
		scripted.ToolCalls(scripted.Call{ID: "p2", Name: "pick_tools", Arguments: `{"names":["memory_search"]}`}),
		scripted.Text("Picked."),
	)
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "swap", "-p", "read something")})
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "swap", "-p", "remember something")})
	reqs := srv.Requests()
	first := reqs[0]
	for _, name := range []string{"memory_search", "memory_get", "memory_write"} {
		if tool := e2e.ToolNamed(first, name); tool == nil || e2e.HasProperties(tool) {
			t.Errorf("first request: %s is not a brief", name)
		}
	}
	if !e2e.HasProperties(e2e.ToolNamed(reqs[1], "read_file")) || !e2e.HasProperties(e2e.ToolNamed(reqs[1], "bash")) || e2e.HasProperties(e2e.ToolNamed(reqs[1], "memory_search")) {
		t.Errorf("after picking read_file: the file tools should be full and the memory tools briefs")
	}
	if !e2e.HasProperties(e2e.ToolNamed(reqs[3], "memory_get")) || !e2e.HasProperties(e2e.ToolNamed(reqs[3], "memory_write")) || e2e.HasProperties(e2e.ToolNamed(reqs[3], "read_file")) {
		t.Errorf("after picking memory_search: the memory tools should be full and the file tools briefs")
	}
}
