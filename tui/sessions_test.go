package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

func storeSessions(t *testing.T, srv *fake.Provider, dir string) *StoreSessions {
	t.Helper()
	store, err := sessions.Open(context.Background(), filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	reg, _ := tools.NewRegistry()
	set := picker.New(reg, picker.ModePick)
	return &StoreSessions{
		Store: store, Dir: dir, Model: "scripted-model", Provider: "127.0.0.1",
		System: func() string { return "the system prompt" },
		NewLoop: func(model string, rec loop.Store) (*loop.Loop, error) {
			return loop.New(loop.Config{
				Provider: srv,
				Model:    model, Catalog: set, Store: rec,
			})
		},
	}
}

func TestSessionsAreSavedPickedAndResumed(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(fake.Text("Answer about zebras."), fake.Text("Answer about kiwis."), fake.Text("Back with zebras."))
	ss := storeSessions(t, srv, dir)
	ctx := context.Background()
	first, err := ss.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(t, srv, dir, nil)
	cfg.Session, cfg.Sessions = first, ss
	d := newDriver(t, cfg)

	d.typeAndSend("tell me about zebras")
	d.untilShows("Answer about zebras.")
	d.until("the title in the status line", func(s string) bool { return strings.Contains(s, "tell me about zebras") && !d.m.running })

	d.typeAndSend("/new")
	d.untilShows("New conversation.")
	if strings.Contains(d.screen(), "zebras") {
		t.Errorf("/new still shows the earlier conversation")
	}
	d.typeAndSend("and kiwis?")
	d.untilShows("Answer about kiwis.")
	d.until("idle", func(string) bool { return !d.m.running })

	d.typeAndSend("/sessions")
	d.untilShows("Resume a session")
	d.untilShows("tell me about zebras")
	d.key("down") // newest first: kiwis, then zebras
	d.key("enter")
	d.untilShows("Answer about zebras.")
	if strings.Contains(d.screen(), "kiwis") || d.m.session.ID != first.ID {
		t.Errorf("the picked session is not the one shown:\n%s", d.screen())
	}
	d.typeAndSend("zebras again")
	d.untilShows("Back with zebras.")
	// The answer shows as it streams; it is stored when it ends.
	d.until("idle", func(string) bool { return !d.m.running })
	req := srv.Requests()[2]
	got := []string{"system:" + req.System}
	for _, m := range req.Messages {
		got = append(got, string(m.Role)+":"+m.Text())
	}
	want := "system:the system prompt | user:tell me about zebras | assistant:Answer about zebras. | user:zebras again"
	if strings.Join(got, " | ") != want {
		t.Errorf("resumed request:\n%s\nwant\n%s", strings.Join(got, " | "), want)
	}

	saved, err := ss.Store.Get(ctx, first.ID)
	if err != nil || saved.Title != "tell me about zebras" || saved.Messages != 4 {
		t.Errorf("saved session %+v, %v", saved, err)
	}
}

func TestEmptySessionsAreCleanedUp(t *testing.T) {
	srv := fake.New(fake.Text("hi"))
	ss := storeSessions(t, srv, t.TempDir())
	ctx := context.Background()
	empty, _ := ss.New(ctx)
	used, _ := ss.New(ctx)
	if err := ss.Store.Recorder(used.ID).AppendMessage(ctx, userMessage("kept"), zeroUsage); err != nil {
		t.Fatal(err)
	}
	if err := ss.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Store.Get(ctx, empty.ID); err == nil {
		t.Errorf("the empty session is still there")
	}
	if _, err := ss.Store.Get(ctx, used.ID); err != nil {
		t.Errorf("the used session was removed: %v", err)
	}
}

var zeroUsage providers.Usage

func userMessage(text string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
}

func TestPickSessionOpensThePickerAtStart(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(fake.Text("Answer one."))
	ss := storeSessions(t, srv, dir)
	ctx := context.Background()
	old, _ := ss.New(ctx)
	rec := ss.Store.Recorder(old.ID)
	rec.AppendMessage(ctx, userMessage("the old question"), zeroUsage)
	ss.Store.SetTitle(ctx, old.ID, "the old question")
	fresh, _ := ss.New(ctx)
	cfg := config(t, srv, dir, nil)
	cfg.Session, cfg.Sessions, cfg.PickSession = fresh, ss, true
	d := newDriver(t, cfg)
	d.untilShows("Resume a session")
	d.untilShows("the old question")
	d.key("enter")
	d.until("the old session", func(string) bool { return d.m.picker == nil && d.m.session.ID == old.ID })
	if !strings.Contains(d.screen(), "❯ the old question") {
		t.Errorf("the resumed conversation is not shown:\n%s", d.screen())
	}
}

// A session that arrives while a turn runs (/new, then Enter before the
// store answered) is not switched to: the turn stays with its session.
func TestNoSessionSwitchWhileATurnRuns(t *testing.T) {
	dir := t.TempDir()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Herons wait patiently.").WithPieceSize(4).HoldAfterEvents(2, hold))
	ss := storeSessions(t, srv, dir)
	first, _ := ss.New(context.Background())
	other, _ := ss.New(context.Background())
	cfg := config(t, srv, dir, nil)
	cfg.Session, cfg.Sessions = first, ss
	d := newDriver(t, cfg)
	d.typeAndSend("go")
	d.untilShows("Herons")
	d.update(sessionOpenedMsg{sess: other})
	if d.m.session.ID != first.ID {
		t.Errorf("the session switched while a turn ran")
	}
	d.untilShows("switch sessions when it ends")
}

// With -r and a prompt, the prompt waits for the person's pick and goes to
// the picked session.
func TestPromptWaitsForThePickedSession(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(fake.Text("Answered in the old session."))
	ss := storeSessions(t, srv, dir)
	ctx := context.Background()
	old, _ := ss.New(ctx)
	ss.Store.Recorder(old.ID).AppendMessage(ctx, userMessage("old question"), zeroUsage)
	ss.Store.SetTitle(ctx, old.ID, "old question")
	fresh, _ := ss.New(ctx)
	cfg := config(t, srv, dir, nil)
	cfg.Session, cfg.Sessions, cfg.PickSession, cfg.Prompt = fresh, ss, true, "the new question"
	d := newDriver(t, cfg)
	d.untilShows("Resume a session")
	if len(srv.Requests()) != 0 {
		t.Fatal("the prompt was sent before a session was picked")
	}
	d.untilShows("old question")
	d.key("enter")
	d.untilShows("Answered in the old session.")
	if d.m.session.ID != old.ID {
		t.Errorf("the prompt went to session %s, want the picked %s", d.m.session.ID, old.ID)
	}
}
