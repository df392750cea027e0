package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// sessionsFixture is a database with two sessions in two directories.
type sessionsFixture struct {
	db, dirA, dirB string
	a, b           string // session ids
}

// resultLines is how many lines the read_file result of session a has.
const resultLines = 30

func newSessionsFixture(t *testing.T) *sessionsFixture {
	t.Helper()
	ctx := context.Background()
	f := &sessionsFixture{db: filepath.Join(t.TempDir(), "agent.db"), dirA: t.TempDir(), dirB: t.TempDir()}
	s, err := sessions.Open(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

	// Session a: a read_file call that succeeds after 12 ms.
	a, err := s.Create(ctx, sessions.NewSession{Dir: f.dirA, Provider: "api.example.com", Model: "gpt-test",
		SystemPrompt: "You are agent.", Title: "Fix the flaky test"})
	must(err)
	f.a = a.ID
	rec := s.Recorder(a.ID)
	read := providers.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a_test.go"}`}
	var content []string
	for i := 1; i <= resultLines; i++ {
		content = append(content, fmt.Sprintf("line %d", i))
	}
	readResult := providers.ToolResult{CallID: "call_1", Name: "read_file", Content: strings.Join(content, "\n") + "\n```go\nx := 1\n```"}
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "Fix the flaky test"}}}, providers.Usage{}))
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
		providers.Reasoning{Text: "The test sleeps."}, providers.Text{Text: "Reading it."}, read,
	}}, providers.Usage{InputTokens: 100, OutputTokens: 20}))
	must(rec.StartToolCall(ctx, read, t0))
	must(rec.FinishToolCall(ctx, read, readResult, t0, t0.Add(12*time.Millisecond)))
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleTool, Parts: []providers.Part{readResult}}, providers.Usage{}))
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
		providers.Text{Text: "Fixed: the test no longer sleeps."},
	}}, providers.Usage{InputTokens: 150, OutputTokens: 30}))

	// Session b: a bash call, allowed by a rule, that fails after 40 ms and
	// a grep call that started and never finished.
	b, err := s.Create(ctx, sessions.NewSession{Dir: f.dirB, Model: "gpt-test", Title: "Run the tests"})
	must(err)
	f.b = b.ID
	rec = s.Recorder(b.ID)
	bash := providers.ToolCall{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./..."}`}
	grep := providers.ToolCall{ID: "call_2", Name: "grep", Arguments: `{"pattern":"Sleep"}`}
	bashResult := providers.ToolResult{CallID: "call_1", Name: "bash", Content: "exit status 1", IsError: true}
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "Run the tests"}}}, providers.Usage{}))
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{bash, grep}},
		providers.Usage{InputTokens: 50, OutputTokens: 5}))
	must(rec.StartToolCall(ctx, bash, t0))
	must(rec.DecideToolCall(ctx, bash, true, `rule "go test"`, 0))
	must(rec.StartToolCall(ctx, grep, t0))
	must(rec.FinishToolCall(ctx, bash, bashResult, t0, t0.Add(40*time.Millisecond)))
	must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleTool, Parts: []providers.Part{bashResult}}, providers.Usage{}))
	return f
}

// runSessions runs "agent --db DB sessions ARGS..." and returns what it
// printed on stdout.
func runSessions(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := NewRootCmd(Streams{Out: &out, Err: &errOut}, envOf(nil), nil)
	c.SetArgs(append([]string{"--db", db, "sessions"}, args...))
	err := c.Execute()
	return out.String(), err
}

func mustRun(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, err := runSessions(t, db, args...)
	if err != nil {
		t.Fatalf("sessions %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func TestSessionsListText(t *testing.T) {
	f := newSessionsFixture(t)
	out := mustRun(t, f.db, "list", "-C", f.dirA)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "TOKENS IN/OUT") {
		t.Fatalf("list in dir a:\n%s", out)
	}
	for _, want := range []string{f.a, "Fix the flaky test", "just now", " 4 ", "250/50"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("list row %q lacks %q", lines[1], want)
		}
	}
	if strings.Contains(out, f.b) {
		t.Errorf("list in dir a shows session b:\n%s", out)
	}

	// -C before "sessions" works too.
	var buf bytes.Buffer
	c := NewRootCmd(Streams{Out: &buf, Err: &buf}, envOf(nil), nil)
	c.SetArgs([]string{"--db", f.db, "-C", f.dirB, "sessions", "list"})
	if err := c.Execute(); err != nil || !strings.Contains(buf.String(), f.b) || strings.Contains(buf.String(), f.a) {
		t.Errorf("-C DIR sessions list: %v\n%s", err, buf.String())
	}

	all := mustRun(t, f.db, "list", "--all", "-C", f.dirA)
	if !strings.Contains(all, f.a) || !strings.Contains(all, f.b) || !strings.Contains(all, f.dirB) {
		t.Errorf("list --all:\n%s", all)
	}

	empty := mustRun(t, f.db, "list", "-C", t.TempDir())
	if strings.Count(empty, "\n") != 1 || !strings.Contains(empty, "No sessions") || !strings.Contains(empty, "agent -p") {
		t.Errorf("empty list: %q", empty)
	}
}

func TestSessionsListJSON(t *testing.T) {
	f := newSessionsFixture(t)
	var got []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, f.db, "list", "--all", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("list --all --json: %d sessions, want 2", len(got))
	}
	byID := map[string]map[string]any{}
	for _, s := range got {
		byID[s["id"].(string)] = s
	}
	a := byID[f.a]
	if a == nil || a["title"] != "Fix the flaky test" || a["dir"] != f.dirA || a["messages"] != 4.0 || a["status"] != "running" {
		t.Fatalf("session a: %v", a)
	}
	if tok := a["tokens"].(map[string]any); tok["input"] != 250.0 || tok["output"] != 50.0 {
		t.Errorf("tokens of a: %v", tok)
	}
	if _, err := time.Parse(time.RFC3339, a["updated_at"].(string)); err != nil {
		t.Errorf("updated_at: %v", err)
	}

	var none []any
	out := mustRun(t, f.db, "list", "--json", "-C", t.TempDir())
	if err := json.Unmarshal([]byte(out), &none); err != nil || none == nil || len(none) != 0 {
		t.Errorf("empty list --json = %q, want []", out)
	}
}

func TestSessionsShow(t *testing.T) {
	f := newSessionsFixture(t)
	out := mustRun(t, f.db, "show", f.a[:6])
	for _, want := range []string{
		"session " + f.a + ": Fix the flaky test", "▸ user\nFix the flaky test", "(reasoning omitted",
		"→ read_file {\"path\":\"a_test.go\"}\n", "▸ tool read_file (ok · 12 ms)", "line 20\n",
		"… 13 more lines", "Fixed: the test no longer sleeps.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "The test sleeps.") || strings.Contains(out, "line 21") {
		t.Errorf("show prints reasoning or more than %d result lines:\n%s", showLines, out)
	}
	out = mustRun(t, f.db, "show", f.b)
	for _, want := range []string{
		"→ bash {\"command\":\"go test ./...\"}  [allowed: rule \"go test\"]\n", "▸ tool bash (error · 40 ms)", "exit status 1",
		"→ grep {\"pattern\":\"Sleep\"}  [executing: never finished]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show b lacks %q:\n%s", want, out)
		}
	}
}

func TestSessionsExportJSON(t *testing.T) {
	f := newSessionsFixture(t)
	out := mustRun(t, f.db, "export", f.a, "--format", "json")
	dec := json.NewDecoder(strings.NewReader(out))
	var exp struct {
		Session struct {
			ID, Title, Dir, Model, Status, SystemPrompt string
			Tokens                                      struct{ Input, Output int }
		}
		Messages []struct {
			Seq   int
			Role  string
			Parts []map[string]any
		}
		ToolCalls []struct {
			CallID, Name, Arguments, Status, Result string
			IsError                                 bool     `json:"is_error"`
			StartedAt                               string   `json:"started_at"`
			FinishedAt                              string   `json:"finished_at"`
			DurationMS                              *float64 `json:"duration_ms"`
			Decision                                *string  `json:"decision"`
		} `json:"tool_calls"`
	}
	if err := dec.Decode(&exp); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("export json printed more than one object")
	}
	var sys map[string]map[string]any
	json.Unmarshal([]byte(out), &sys)
	if exp.Session.ID != f.a || sys["session"]["system_prompt"] != "You are agent." || exp.Session.Tokens.Input != 250 ||
		exp.Session.Model != "gpt-test" || exp.Session.Dir != f.dirA {
		t.Errorf("session: %+v", exp.Session)
	}
	if len(exp.Messages) != 4 {
		t.Fatalf("%d messages, want 4", len(exp.Messages))
	}
	var types []string
	for _, m := range exp.Messages {
		for _, p := range m.Parts {
			types = append(types, m.Role+":"+p["type"].(string))
		}
	}
	want := "user:text assistant:reasoning assistant:text assistant:tool_call tool:tool_result assistant:text"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("parts: %s\nwant  %s", got, want)
	}
	if p := exp.Messages[1].Parts[2]; p["arguments"] != `{"path":"a_test.go"}` || p["id"] != "call_1" {
		t.Errorf("tool call part: %v", p)
	}
	if r := exp.Messages[2].Parts[0]["content"].(string); strings.Count(r, "\n") != resultLines+2 {
		t.Errorf("tool result not complete: %q", r)
	}
	if len(exp.ToolCalls) != 1 {
		t.Fatalf("%d tool calls, want 1", len(exp.ToolCalls))
	}
	tc := exp.ToolCalls[0]
	if tc.Name != "read_file" || tc.Status != "completed" || tc.IsError || tc.DurationMS == nil || *tc.DurationMS != 12 ||
		tc.StartedAt != "2025-03-01T12:00:00Z" || tc.FinishedAt != "2025-03-01T12:00:00.012Z" || !strings.HasPrefix(tc.Result, "line 1\n") {
		t.Errorf("tool call: %+v", tc)
	}
	if !strings.Contains(out, `"decision": null`) || tc.Decision != nil {
		t.Errorf("a read-only call's decision should be null: %v", tc.Decision)
	}

	// An unfinished call has null times and duration.
	var b map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, f.db, "export", f.b)), &b); err != nil {
		t.Fatal(err)
	}
	grep := b["tool_calls"].([]any)[1].(map[string]any)
	if grep["status"] != "executing" || grep["finished_at"] != nil || grep["duration_ms"] != nil || grep["started_at"] == nil {
		t.Errorf("unfinished call: %v", grep)
	}
	if bash := b["tool_calls"].([]any)[0].(map[string]any); bash["decision"] != `allowed: rule "go test"` {
		t.Errorf("decision of the bash call = %v", bash["decision"])
	}
}

func TestSessionsExportMarkdown(t *testing.T) {
	f := newSessionsFixture(t)
	out := mustRun(t, f.db, "export", f.a, "--format", "markdown")
	for _, want := range []string{
		"# Fix the flaky test\n", "- **id**: " + f.a, "## System prompt", "You are agent.", "## Turn 1",
		"### 1. user", "### 2. assistant", "The test sleeps.",
		"**Tool call** `read_file` (id `call_1`) · completed", "12 ms",
		"```json\n{\n  \"path\": \"a_test.go\"\n}\n```", "### 3. tool result `read_file`",
		"````text\nline 1\n", "line 30\n```go\nx := 1\n```\n````\n", "Fixed: the test no longer sleeps.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "allowed") {
		t.Errorf("markdown of a session without decisions mentions one:\n%s", out)
	}
	out = mustRun(t, f.db, "export", f.b, "--format", "markdown")
	if want := "**Tool call** `bash` (id `call_1`) · failed, started 2025-03-01T12:00:00Z, finished 2025-03-01T12:00:00.04Z, 40 ms · `allowed: rule \"go test\"`\n"; !strings.Contains(out, want) {
		t.Errorf("markdown lacks %q:\n%s", want, out)
	}
	if _, err := runSessions(t, f.db, "export", f.a, "--format", "yaml"); exitCode(err) != ExitUsage {
		t.Errorf("--format yaml: exit %d (%v), want %d", exitCode(err), err, ExitUsage)
	}
}

func TestSessionsRm(t *testing.T) {
	f := newSessionsFixture(t)
	out := mustRun(t, f.db, "rm", f.a[:5])
	if !strings.Contains(out, "removed session "+f.a) || !strings.Contains(out, "Fix the flaky test") {
		t.Errorf("rm printed %q", out)
	}
	s, err := sessions.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Get(context.Background(), f.a); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Get after rm: %v, want ErrNotFound", err)
	}
	if _, err := s.Get(context.Background(), f.b); err != nil {
		t.Errorf("rm removed the other session too: %v", err)
	}
}

func TestSessionsStats(t *testing.T) {
	f := newSessionsFixture(t)
	var all struct{ Tools []map[string]any }
	if err := json.Unmarshal([]byte(mustRun(t, f.db, "stats", "--all", "--json")), &all); err != nil {
		t.Fatal(err)
	}
	got := all.Tools
	want := `[{"approval_wait_median_ms":0,"asked":0,"calls":1,"denied":0,"failure_percent":100,"failures":1,"median_ms":40,"name":"bash","p95_ms":40,"unfinished":0},` +
		`{"approval_wait_median_ms":0,"asked":0,"calls":0,"denied":0,"failure_percent":0,"failures":0,"median_ms":0,"name":"grep","p95_ms":0,"unfinished":1},` +
		`{"approval_wait_median_ms":0,"asked":0,"calls":1,"denied":0,"failure_percent":0,"failures":0,"median_ms":12,"name":"read_file","p95_ms":12,"unfinished":0}]`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("stats --all --json =\n%s\nwant\n%s", b, want)
	}

	out := mustRun(t, f.db, "stats", "-C", f.dirA)
	out, _, _ = strings.Cut(out, "\n\n") // the tools' table; the sessions' follows
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "MEDIAN") || strings.Join(strings.Fields(lines[1]), " ") != "read_file 1 0.0% 12.0 ms 12.0 ms 0 0 - 0" {
		t.Errorf("stats in dir a:\n%s", out)
	}
	if out := mustRun(t, f.db, "stats", "--all"); !strings.Contains(strings.Join(strings.Fields(out), " "), "bash 1 100.0% 40.0 ms 40.0 ms 0 0 - 0 grep 0 - - - 0 0 - 1") {
		t.Errorf("stats --all:\n%s", out)
	}
	if out := mustRun(t, f.db, "stats", "-C", t.TempDir()); !strings.Contains(out, "No tool calls recorded") {
		t.Errorf("empty stats: %q", out)
	}
}

func TestSessionsBadInput(t *testing.T) {
	f := newSessionsFixture(t)
	// Two sessions whose ids share the prefix "abcd".
	s, err := sessions.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.Create(context.Background(), sessions.NewSession{Dir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sql.Open("sqlite", f.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE sessions SET id = 'abcd' || substr(id, 5) WHERE message_count = 0`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	tests := []struct {
		name string
		args []string
		code int
	}{
		{"unknown id", []string{"show", "ffff0000ffff"}, ExitUsage},
		{"unknown id rm", []string{"rm", "ffff0000ffff"}, ExitUsage},
		{"ambiguous prefix", []string{"show", "abcd"}, ExitUsage},
		{"ambiguous prefix export", []string{"export", "abcd"}, ExitUsage},
		{"short prefix", []string{"show", "ab"}, ExitUsage},
		{"missing id", []string{"show"}, ExitUsage},
		{"unknown subcommand", []string{"frobnicate"}, ExitUsage},
		{"bad flag", []string{"list", "--nope"}, ExitUsage},
	}
	for _, tt := range tests {
		_, err := runSessions(t, f.db, tt.args...)
		if got := exitCode(err); got != tt.code {
			t.Errorf("%s: exit %d (%v), want %d", tt.name, got, err, tt.code)
		}
	}

	corrupt := filepath.Join(t.TempDir(), "corrupt.db")
	if err := os.WriteFile(corrupt, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = runSessions(t, corrupt, "list")
	if exitCode(err) != ExitRuntime || !strings.Contains(fmt.Sprint(err), "opening session database") {
		t.Errorf("corrupt database: exit %d (%v), want %d", exitCode(err), err, ExitRuntime)
	}
}

func TestRelativeTime(t *testing.T) {
	now := time.Date(2025, 3, 31, 12, 0, 0, 0, time.Local)
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{-time.Hour, "just now"},
		{5 * time.Minute, "5m ago"},
		{3*time.Hour + 59*time.Minute, "3h ago"},
		{50 * time.Hour, "2d ago"},
		{40 * 24 * time.Hour, "2025-02-19"},
	}
	for _, tt := range tests {
		if got := relativeTime(now.Add(-tt.ago), now); got != tt.want {
			t.Errorf("relativeTime(%s ago) = %q, want %q", tt.ago, got, tt.want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for in, want := range map[string]string{
		`allowed: rule "git *"`: "`allowed: rule \"git *\"`",
		"denied: rule `rm`":     "`` denied: rule `rm` ``",
		"a ``b`` c":             "```a ``b`` c```",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownFence(t *testing.T) {
	for _, tt := range []struct{ in, fence string }{
		{"plain", "```"}, {"a ``` b", "````"}, {"`````", "``````"},
	} {
		if got := mdFence(tt.in, ""); !strings.HasPrefix(got, tt.fence+"\n") || !strings.HasSuffix(got, "\n"+tt.fence+"\n") {
			t.Errorf("mdFence(%q) = %q, want fence %s", tt.in, got, tt.fence)
		}
	}
}
