package sessions_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

var zeroUsage providers.Usage

func userMsg(text string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
}

// tickingClock makes s's clock start at a fixed time and advance one second
// on every reading.
func tickingClock(s *sessions.Store) {
	var mu sync.Mutex
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	sessions.SetClock(s, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	})
}

func create(t testing.TB, s *sessions.Store, dir, title string) *sessions.Session {
	t.Helper()
	ss, err := s.Create(context.Background(), sessions.NewSession{
		Dir: dir, Provider: "api.example.com", Model: "gpt-x", SystemPrompt: "be brief", Title: title,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestCreateAndGet(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	ss := create(t, s, dir+"/sub/..", "fix the tests")
	if len(ss.ID) != 12 || strings.Trim(ss.ID, "0123456789abcdef") != "" {
		t.Errorf("id %q is not 12 lowercase hex characters", ss.ID)
	}
	if ss.Dir != dir || ss.Status != sessions.StatusRunning || ss.CreatedAt.IsZero() {
		t.Errorf("created %+v", ss)
	}
	got, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if *got != *ss {
		t.Errorf("Get = %+v\nwant %+v", got, ss)
	}
	if other := create(t, s, dir, ""); other.ID == ss.ID {
		t.Error("two sessions with one id")
	}
	if _, err := s.Create(ctx, sessions.NewSession{}); err == nil {
		t.Error("Create without a directory: no error")
	}
}

func TestMissingNamesTheIdsNoSessionHas(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	a, b := create(t, s, t.TempDir(), ""), create(t, s, t.TempDir(), "")
	got, err := s.Missing(ctx, []string{"0123456789ab", a.ID, "ffffffffffff", b.ID, a.ID[:8]})
	if err != nil {
		t.Fatal(err)
	}
	// A prefix is not a session's id.
	if want := []string{"0123456789ab", "ffffffffffff", a.ID[:8]}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Missing = %q, want %q", got, want)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Missing(ctx, []string{a.ID, b.ID}); err != nil || len(got) != 1 || got[0] != a.ID {
		t.Fatalf("after deleting %s, Missing = %q, %v", a.ID, got, err)
	}
}

func TestGetPrefix(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, id := range []string{"abcd00000001", "abcd00000002", "abce00000003"} {
		if _, err := sessions.DB(s).Exec(`INSERT INTO sessions (id, dir, created_at, updated_at)
			VALUES (?, '/w', 0, 0)`, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		id   string
		want string
		err  error
	}{
		{"abcd00000001", "abcd00000001", nil},
		{"ABCD00000002", "abcd00000002", nil},
		{"abce", "abce00000003", nil},
		{" abce0 ", "abce00000003", nil},
		{"abcd0000000", "", sessions.ErrAmbiguous},
		{"abcd", "", sessions.ErrAmbiguous},
		{"abc", "", sessions.ErrNotFound}, // shorter than MinPrefix
		{"abcf", "", sessions.ErrNotFound},
		{"abcd000000010", "", sessions.ErrNotFound},
		{"", "", sessions.ErrNotFound},
		{"%", "", sessions.ErrNotFound},
	} {
		got, err := s.Get(ctx, tt.id)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Get(%q) = %v, %v; want %v", tt.id, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.ID != tt.want {
			t.Errorf("Get(%q) = %v, %v; want %s", tt.id, got, err, tt.want)
		}
	}
}

func TestLatestByDirectory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var mu sync.Mutex
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	sessions.SetClock(s, func() time.Time { // a second a reading
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	})
	a, b := t.TempDir(), t.TempDir()
	if _, err := s.Latest(ctx, a); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("Latest of an empty directory: %v", err)
	}
	a1 := create(t, s, a, "a1")
	a2 := create(t, s, a, "a2")
	b1 := create(t, s, b, "b1")
	check := func(dir, want string) {
		t.Helper()
		got, err := s.Latest(ctx, dir)
		if err != nil || got.ID != want {
			t.Errorf("Latest(%s) = %v, %v; want %s", dir, got, err, want)
		}
	}
	check(a, a2.ID)
	check(b, b1.ID)
	// A message makes a1 the latest again (a minute on: a session's
	// records bump its updated time at most every few seconds, and a new
	// session's starts at its creation).
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if err := s.Recorder(a1.ID).AppendMessage(ctx, userMsg("again"), zeroUsage); err != nil {
		t.Fatal(err)
	}
	check(a, a1.ID)
	check(a+string(filepath.Separator), a1.ID) // the same directory, spelled differently
	if err := s.SetStatus(ctx, a2.ID, sessions.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	check(a, a2.ID)
}

func TestListOrderAndFilter(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	tickingClock(s)
	a, b := t.TempDir(), t.TempDir()
	var ids []string // in creation order
	for i, dir := range []string{a, b, a, b, a} {
		ids = append(ids, create(t, s, dir, "s"+string(rune('0'+i))).ID)
	}
	rec := s.Recorder(ids[0])
	usage := providers.Usage{InputTokens: 100, OutputTokens: 20, CachedInputTokens: 5, ReasoningTokens: 3}
	if err := rec.AppendMessage(ctx, userMsg("q"), zeroUsage); err != nil {
		t.Fatal(err)
	}
	if err := rec.AppendMessage(ctx, assistantMsg("a"), usage); err != nil {
		t.Fatal(err)
	}
	if err := rec.AppendMessage(ctx, assistantMsg("b"), usage); err != nil {
		t.Fatal(err)
	}
	order := func(list []sessions.Summary) []string {
		var out []string
		for _, l := range list {
			out = append(out, l.ID)
		}
		return out
	}
	for _, tt := range []struct {
		opts sessions.ListOptions
		want []string
	}{
		{sessions.ListOptions{}, []string{ids[0], ids[4], ids[3], ids[2], ids[1]}},
		{sessions.ListOptions{Limit: 2}, []string{ids[0], ids[4]}},
		{sessions.ListOptions{Dir: a}, []string{ids[0], ids[4], ids[2]}},
		{sessions.ListOptions{Dir: b, Limit: 1}, []string{ids[3]}},
		{sessions.ListOptions{Dir: t.TempDir()}, nil},
	} {
		list, err := s.List(ctx, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := order(list); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("List(%+v) = %v, want %v", tt.opts, got, tt.want)
		}
	}
	list, err := s.List(ctx, sessions.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	top := list[0]
	if top.Messages != 3 || top.Usage != usage.Add(usage) || top.Title != "s0" || top.Model != "gpt-x" ||
		top.Dir != a || !top.UpdatedAt.After(top.CreatedAt) {
		t.Errorf("summary = %+v", top)
	}
}

func TestSetStatusAndTitle(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "old")
	if err := s.SetStatus(ctx, ss.ID, sessions.StatusCancelled); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTitle(ctx, ss.ID, "new"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != sessions.StatusCancelled || got.Title != "new" {
		t.Errorf("got %+v", got)
	}
	if err := s.SetStatus(ctx, ss.ID, "paused"); err == nil {
		t.Error("invalid status accepted")
	}
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const id = "0123456789ab"
	now := time.Now()
	call := providers.ToolCall{ID: "c", Name: "bash"}
	for name, err := range map[string]error{
		"Get":            func() error { _, err := s.Get(ctx, id); return err }(),
		"Delete":         s.Delete(ctx, id),
		"SetStatus":      s.SetStatus(ctx, id, sessions.StatusFailed),
		"SetTitle":       s.SetTitle(ctx, id, "x"),
		"Messages":       func() error { _, err := s.Messages(ctx, id); return err }(),
		"MessageRecords": func() error { _, err := s.MessageRecords(ctx, id); return err }(),
		"ToolCalls":      func() error { _, err := s.ToolCalls(ctx, id); return err }(),
		"AppendMessage":  s.Recorder(id).AppendMessage(ctx, userMsg("x"), zeroUsage),
		"StartToolCall":  s.Recorder(id).StartToolCall(ctx, call, now),
		"FinishToolCall": s.Recorder(id).FinishToolCall(ctx, call, providers.ToolResult{}, now, now),
		"DecideToolCall": s.Recorder(id).DecideToolCall(ctx, call, true, "person: once", 0),
	} {
		if !errors.Is(err, sessions.ErrNotFound) {
			t.Errorf("%s of an unknown session: %v, want ErrNotFound", name, err)
		} else if !strings.Contains(err.Error(), id) {
			t.Errorf("%s: error %q does not name the session", name, err)
		}
	}
	// A call id the session never asked for.
	ss := create(t, s, t.TempDir(), "")
	if err := s.Recorder(ss.ID).StartToolCall(ctx, call, now); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("StartToolCall of an unknown call: %v", err)
	}
	if err := s.Recorder(ss.ID).DecideToolCall(ctx, call, false, "denied by rule", 0); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("DecideToolCall of an unknown call: %v", err)
	}
}

func TestDeleteCascades(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	keep, gone := create(t, s, dir, "keep"), create(t, s, dir, "gone")
	for _, ss := range []*sessions.Session{keep, gone} {
		writeTurn(t, s.Recorder(ss.ID), "c1", "c2")
	}
	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, gone.ID); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	for table, want := range map[string]int{"sessions": 1, "messages": 4, "tool_calls": 2} {
		var n int
		if err := sessions.DB(s).QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%d rows in %s after deleting one of two sessions, want %d", n, table, want)
		}
	}
	if err := s.Delete(ctx, gone.ID); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
}

func TestTitleFromPrompt(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tt := range []struct{ in, want string }{
		{"fix the build\nplease", "fix the build"},
		{"\n\n   hello  \r\nworld", "hello"},
		{"   \n", ""},
		{long, strings.Repeat("é", 79) + "…"},
	} {
		if got := sessions.TitleFromPrompt(tt.in); got != tt.want {
			t.Errorf("TitleFromPrompt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
