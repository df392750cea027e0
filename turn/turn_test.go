package turn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/turn"
)

// setup is a working directory with main.go, a session store with one
// session, and a loop answering from replies.
func setup(t *testing.T, replies ...fake.Reply) (*sessions.Store, *sessions.Session, *loop.Loop, *fake.Provider, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	store, err := sessions.Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sess, err := store.Create(context.Background(), sessions.NewSession{Dir: dir, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := tools.NewRegistry()
	p := fake.New(replies...)
	l, err := loop.New(loop.Config{Provider: p, Model: "m", Catalog: picker.New(reg, picker.ModeAll)})
	if err != nil {
		t.Fatal(err)
	}
	return store, sess, l, p, root
}

// newMentions returns the mentions of root through the real file tools,
// reads recorded in a tracker of their own.
func newMentions(root *os.Root) *mention.Mentions {
	return mention.New(root, mention.Files{Read: fs.ReadFile(root, fs.NewSessions(nil)), List: fs.ListFiles(root), Walk: fs.Files})
}

func drain(ch <-chan loop.Event) (evs []loop.Event, done loop.Done) {
	for ev := range ch {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
		evs = append(evs, ev)
	}
	return evs, done
}

func TestATurnAttachesMentionsTitlesTheSessionAndRecordsItsEnd(t *testing.T) {
	store, sess, l, p, root := setup(t, fake.Text("It is empty."))
	r := &turn.Runner{Mentions: newMentions(root), Sessions: store}
	conv := conversation.New("", store.Recorder(sess.ID))
	evs, done := drain(r.Turn(context.Background(), l, conv, turn.Text("what is in @main.go?")))
	if done.Reason != loop.StopAnswered || done.Err != nil {
		t.Fatalf("done %+v", done)
	}
	if n, ok := evs[0].(loop.Notice); !ok || !strings.Contains(n.Text, "Attached main.go") {
		t.Errorf("first event %+v, want the note of the attachment", evs[0])
	}
	sent := p.Requests()[0].Messages[0].Text()
	if !strings.HasPrefix(sent, "what is in @main.go?") || !strings.Contains(sent, `<attached path="main.go">`) {
		t.Errorf("the model got %q", sent)
	}
	got, err := store.Get(context.Background(), sess.ID)
	if err != nil || got.Title != "what is in @main.go?" || got.Status != sessions.StatusCompleted {
		t.Errorf("session after the turn: %+v, %v", got, err)
	}
}

func TestDataBesideThePromptIsNeverExpanded(t *testing.T) {
	store, sess, l, p, root := setup(t, fake.Text("ok"))
	r := &turn.Runner{Mentions: newMentions(root), Sessions: store}
	conv := conversation.New("", store.Recorder(sess.ID))
	prompt := turn.Prompt{Message: providers.UserText("review this\n\nStandard input:\n@main.go"), Typed: "review this"}
	drain(r.Turn(context.Background(), l, conv, prompt))
	if sent := p.Requests()[0].Messages[0].Text(); strings.Contains(sent, "<attached") {
		t.Errorf("piped data's @ word was attached: %q", sent)
	}
}

// failingSessions cannot write a status.
type failingSessions struct{ turn.Sessions }

func (failingSessions) SetStatus(context.Context, string, sessions.Status) error {
	return errors.New("disk full")
}

func TestATurnThatCannotBeSavedDoesNotRun(t *testing.T) {
	store, sess, l, p, _ := setup(t, fake.Text("never"))
	// A session's later turn writes its status (a new session is created
	// running, and its first turn writes none).
	if err := store.SetStatus(context.Background(), sess.ID, sessions.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	r := &turn.Runner{Sessions: failingSessions{store}}
	conv := conversation.New("", store.Recorder(sess.ID))
	_, done := drain(r.Turn(context.Background(), l, conv, turn.Text("hi")))
	if done.Reason != loop.StopError || done.Err == nil || !strings.Contains(done.Err.Error(), "disk full") {
		t.Errorf("done %+v", done)
	}
	if len(p.Requests()) != 0 {
		t.Errorf("the model was asked although the session could not be saved")
	}
}

// countingSessions counts the reads of the sessions it passes on.
type countingSessions struct {
	turn.Sessions
	gets int
}

func (c *countingSessions) Get(ctx context.Context, id string) (*sessions.Session, error) {
	c.gets++
	return c.Sessions.Get(ctx, id)
}

// A session this process just created starts its first turn without a
// read of the store, titled by its prompt when it has no title; its next
// turn reads it again.
func TestTheFirstTurnOfACreatedSessionReadsNothing(t *testing.T) {
	for _, title := range []string{"", "given"} {
		store, sess, l, _, _ := setup(t, fake.Text("one"), fake.Text("two"))
		if title != "" {
			must(t, store.SetTitle(context.Background(), sess.ID, title))
		}
		counted := &countingSessions{Sessions: store}
		r := &turn.Runner{Sessions: counted}
		r.Created(sess.ID, title)
		conv := conversation.New("", store.Recorder(sess.ID))
		if _, done := drain(r.Turn(context.Background(), l, conv, turn.Text("first prompt"))); done.Err != nil {
			t.Fatal(done.Err)
		}
		want := title
		if want == "" {
			want = "first prompt"
		}
		got, err := store.Get(context.Background(), sess.ID)
		if err != nil || got.Title != want || got.Status != sessions.StatusCompleted || counted.gets != 0 {
			t.Errorf("title %q: after the first turn %+v, %v, %d reads; want title %q and no read", title, got, err, counted.gets, want)
		}
		if _, done := drain(r.Turn(context.Background(), l, conv, turn.Text("second prompt"))); done.Err != nil {
			t.Fatal(done.Err)
		}
		if counted.gets != 1 {
			t.Errorf("title %q: the second turn read the session %d times, want once (its status is completed)", title, counted.gets)
		}
	}
}

func TestStatusFollowsTheStopReason(t *testing.T) {
	for reason, want := range map[loop.StopReason]sessions.Status{
		loop.StopAnswered: sessions.StatusCompleted, loop.StopMaxSteps: sessions.StatusCompleted,
		loop.StopCancelled: sessions.StatusCancelled, loop.StopError: sessions.StatusFailed,
		loop.StopContextFull: sessions.StatusFailed, loop.StopRefused: sessions.StatusFailed, loop.StopMaxTokens: sessions.StatusFailed,
	} {
		if got := turn.Status(reason); got != want {
			t.Errorf("Status(%s) = %s, want %s", reason, got, want)
		}
	}
}

// Observe hears of each turn's start and sees its events, Done last, a
// blocked prompt's included; the turn runs on the context it returns, so
// an observer that cancels it ends the turn.
func TestObserveSeesEachTurnAndMayEndIt(t *testing.T) {
	store, sess, l, _, _ := setup(t, fake.Text("one"))
	var heard []string
	r := &turn.Runner{Sessions: store, Observe: func(ctx context.Context, st turn.Start) (context.Context, func(loop.Event)) {
		session := st.Session
		if len(st.PromptID) != 36 {
			t.Errorf("the prompt's id is %q, not a uuid", st.PromptID)
		}
		heard = append(heard, session+" start")
		return ctx, func(ev loop.Event) {
			if d, ok := ev.(loop.Done); ok {
				heard = append(heard, fmt.Sprintf("%s done %s", session, d.Reason))
			}
		}
	}}
	conv := conversation.New("", store.Recorder(sess.ID))
	drain(r.Turn(context.Background(), l, conv, turn.Text("hi")))
	r.Submit = func(context.Context, string, turn.Prompt) turn.Submission { return turn.Submission{Blocked: "no"} }
	drain(r.Turn(context.Background(), l, conv, turn.Text("again")))
	want := []string{sess.ID + " start", sess.ID + " done " + string(loop.StopAnswered), sess.ID + " start", sess.ID + " done " + string(loop.StopError)}
	if fmt.Sprint(heard) != fmt.Sprint(want) {
		t.Errorf("Observe heard %v, want %v", heard, want)
	}

	// An observer that cancels the turn's context while it streams (a
	// spend cap reached) ends it cancelled.
	never := make(chan struct{})
	store, sess, l, _, _ = setup(t, fake.Text("a long answer").WithPieceSize(2).HoldAfterEvents(1, never))
	conv = conversation.New("", store.Recorder(sess.ID))
	r = &turn.Runner{Sessions: store, Observe: func(ctx context.Context, _ turn.Start) (context.Context, func(loop.Event)) {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, func(ev loop.Event) {
			if _, ok := ev.(loop.TextDelta); ok {
				cancel()
			}
		}
	}}
	var done loop.Done
	for ev := range r.Turn(context.Background(), l, conv, turn.Text("more")) {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
	}
	if done.Reason != loop.StopCancelled {
		t.Errorf("a turn whose observer cancelled it ended %s, want %s", done.Reason, loop.StopCancelled)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
