package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// fixture is a project (a git repository with a subdirectory), a data
// directory and a session store in it.
type fixture struct {
	root, sub, data string
	store           *sessions.Store
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := filepath.Join(t.TempDir(), "proj")
	sub := filepath.Join(root, "sub")
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(t, os.MkdirAll(sub, 0o755))
	data := t.TempDir()
	st, err := sessions.Open(context.Background(), filepath.Join(data, "agent.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	return &fixture{root: root, sub: sub, data: data, store: st}
}

func (f *fixture) memory(dir string, now time.Time) *Memory {
	m := New(f.store, f.data, dir)
	m.now = func() time.Time { return now }
	return m
}

// session records a session in dir with the given user texts.
func (f *fixture) session(t testing.TB, dir string, texts ...string) string {
	t.Helper()
	ctx := context.Background()
	ss, err := f.store.Create(ctx, sessions.NewSession{Dir: dir})
	must(t, err)
	for _, text := range texts {
		must(t, f.store.Recorder(ss.ID).AppendMessage(ctx,
			providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}, providers.Usage{}))
	}
	return ss.ID
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var day = time.Date(2026, 11, 20, 14, 3, 0, 0, time.Local)

func TestProjectMemoryIsSharedBySubdirectoriesAndNotInTheRepository(t *testing.T) {
	f := newFixture(t)
	a, b := f.memory(f.root, day), f.memory(f.sub, day)
	if a.Dir() != b.Dir() || a.Root() != f.root {
		t.Fatalf("dirs %s and %s, root %s", a.Dir(), b.Dir(), a.Root())
	}
	if !strings.HasPrefix(a.Dir(), filepath.Join(f.data, "memory", "proj-")) {
		t.Errorf("memory dir %s is not in the data directory", a.Dir())
	}
	other := f.memory(t.TempDir(), day)
	if other.Dir() == a.Dir() {
		t.Errorf("two projects share %s", a.Dir())
	}
}

func TestRememberAndPrompt(t *testing.T) {
	f := newFixture(t)
	m := f.memory(f.root, day)
	if p := m.Prompt(); p != "" {
		t.Errorf("prompt without MEMORY.md: %q", p)
	}
	path, err := m.EnsureLongTerm()
	must(t, err)
	must(t, os.WriteFile(path, []byte("  \n\n"), 0o600))
	if p := m.Prompt(); p != "" {
		t.Errorf("prompt with a blank MEMORY.md: %q", p)
	}
	must(t, os.WriteFile(path, []byte("no newline at the end"), 0o600))
	if _, err := m.Remember("tests run with\n-race", true); err != nil {
		t.Fatal(err)
	}
	daily, err := m.Remember("looked at the parser", false)
	must(t, err)
	if filepath.Base(daily) != "2026-11-20.md" {
		t.Errorf("daily note %s", daily)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "no newline at the end\n- tests run with\n  -race\n" {
		t.Errorf("MEMORY.md = %q", data)
	}
	data, _ = os.ReadFile(daily)
	if string(data) != "- 14:03 looked at the parser\n" {
		t.Errorf("daily note = %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("MEMORY.md mode %v", fi.Mode())
	}
	p := m.Prompt()
	if !strings.Contains(p, "<memory>\nno newline at the end\n- tests run with") || strings.Contains(p, "parser") {
		t.Errorf("prompt %q", p)
	}
	if _, err := m.Remember(" \n", true); err == nil {
		t.Error("an empty note was saved")
	}

	// A long file is cut at a line's end under the cap, with a note.
	long := strings.Repeat("- a line of memory that goes on\n", 400)
	must(t, os.WriteFile(path, []byte(long), 0o600))
	p = m.Prompt()
	body := p[strings.Index(p, "<memory>\n")+9 : strings.Index(p, "\n(MEMORY.md is longer")]
	if len(body) > MaxPromptBytes || !strings.HasSuffix(body, "goes on") || !strings.Contains(p, "memory_get") {
		t.Errorf("cut prompt: %d bytes, ends %q", len(body), p[len(p)-120:])
	}
}

func TestSearchRanksFilesAndSessions(t *testing.T) {
	f := newFixture(t)
	m := f.memory(f.sub, day)
	_, err := m.Remember("the staging database is postgres 16 on port 5433", true)
	must(t, err)
	_, err = m.Remember("unrelated: lunch at noon", false)
	must(t, err)
	id := f.session(t, f.sub, "hello", "we moved staging to port 5433 yesterday", "thanks")
	current := f.session(t, f.root, "which port does staging use?")
	f.session(t, t.TempDir(), "another project: staging port 9999")

	rs, err := m.Search(context.Background(), "staging port", SearchOptions{Exclude: current})
	must(t, err)
	if len(rs) != 2 {
		t.Fatalf("results %+v", rs)
	}
	keys := rs[0].Key + " " + rs[1].Key
	if !strings.Contains(keys, "MEMORY.md") || !strings.Contains(keys, id+":2") {
		t.Errorf("keys %s", keys)
	}
	if rs[0].Score != 1 {
		t.Errorf("best score %v", rs[0].Score)
	}
	out := FormatResults("staging port", rs, false)
	if !strings.Contains(out, "postgres 16") || !strings.Contains(out, "session "+id+" message 2 (user)") {
		t.Errorf("formatted:\n%s", out)
	}

	all, err := m.Search(context.Background(), "staging port", SearchOptions{AllProjects: true, Max: 10})
	must(t, err)
	if len(all) != 4 {
		t.Errorf("all projects: %d results %+v", len(all), all)
	}
	if _, err := m.Search(context.Background(), "the what", SearchOptions{}); err == nil {
		t.Error("a query of common words gave no error")
	}
}

func TestPassageShowsContextAroundTheMatch(t *testing.T) {
	text := strings.Repeat("filler words here. ", 100) + "the needle is here. " + strings.Repeat("more filler. ", 100)
	p := passage(text, stems([]string{"needle"}))
	if !strings.Contains(p, "the needle is here") || !strings.HasPrefix(p, "…") || !strings.HasSuffix(p, "…") || len(p) > passageChars+8 {
		t.Errorf("passage %q", p)
	}
}

func TestGet(t *testing.T) {
	f := newFixture(t)
	m := f.memory(f.root, day)
	ctx := context.Background()
	if _, err := m.Get(ctx, "MEMORY.md", 0); err == nil {
		t.Error("missing MEMORY.md gave no error")
	}
	_, err := m.Remember("a daily note", false)
	must(t, err)
	for _, key := range []string{"2026-11-20", "2026-11-20.md"} {
		if text, err := m.Get(ctx, key, 0); err != nil || !strings.Contains(text, "a daily note") {
			t.Errorf("Get(%s) = %q, %v", key, text, err)
		}
	}
	if _, err := m.Get(ctx, "2026-11-19", 0); err == nil || !strings.Contains(err.Error(), "2026-11-20") {
		t.Errorf("a missing day: %v", err)
	}
	msgs := make([]string, 10)
	for i := range msgs {
		msgs[i] = "message number " + string(rune('a'+i))
	}
	id := f.session(t, f.root, msgs...)
	text, err := m.Get(ctx, id[:6]+":5", 0)
	must(t, err)
	if !strings.Contains(text, "[3] user") || !strings.Contains(text, "[7] user") || strings.Contains(text, "[8]") || strings.Contains(text, "[2]") {
		t.Errorf("around 5:\n%s", text)
	}
	text, err = m.Get(ctx, id+":9-20", 0)
	must(t, err)
	if !strings.Contains(text, "message number i") || !strings.Contains(text, "message number j") || strings.Contains(text, "[8]") {
		t.Errorf("9-20:\n%s", text)
	}
	for _, bad := range []string{id + ":x", id + ":5-2", "zzzzzzzz", "../MEMORY.md", ""} {
		if _, err := m.Get(ctx, bad, 0); err == nil {
			t.Errorf("Get(%q) gave no error", bad)
		}
	}
	other := f.memory(t.TempDir(), day)
	_, err = other.Remember("in the other project", true)
	must(t, err)
	if text, err := m.Get(ctx, filepath.Base(other.Dir())+"/MEMORY.md", 0); err != nil || !strings.Contains(text, "other project") {
		t.Errorf("other project's file: %q, %v", text, err)
	}
}

// A passage or a cut is masked before it is cut: the cut could otherwise
// keep a token's tail without the prefix that makes masking find it, or a
// private key's last lines without its BEGIN line (issue 42's fifth).
func TestPassagesAreMaskedBeforeTheCut(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Repeat("b3BlbnNzaC1rZXktdjEAAAAA\n", 40) + "-----END OPENSSH PRIVATE KEY-----"
	text := strings.Repeat("filler words here. ", 25) + "deploy token " + token + " then " + key + " needle needle"
	for name, got := range map[string]string{"passage": passage(text, stems([]string{"needle"})), "cut": cut(strings.Repeat("x", 570)+" "+token, 600)} {
		if strings.Contains(got, token[10:25]) || strings.Contains(got, "b3BlbnNzaC1rZXktdjEAAAAA") {
			t.Errorf("%s kept a secret's piece: %q", name, got)
		}
	}
}
