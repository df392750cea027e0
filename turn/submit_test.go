package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/turn"
)

func TestSubmitReplacesThePromptAndItsMentionsAreAttached(t *testing.T) {
	store, sess, l, p, root := setup(t, fake.Text("reviewed"))
	r := &turn.Runner{Mentions: newMentions(root), Sessions: store,
		Submit: func(_ context.Context, session string, p turn.Prompt) turn.Submission {
			if session != sess.ID || p.Typed != "/review main.go" {
				t.Errorf("Submit got %q, %q", session, p.Typed)
			}
			return turn.Submission{Prompt: turn.Text("Review @main.go"), Notices: []loop.Notice{{Source: "commands", Text: "expanded"}}}
		}}
	conv := conversation.New("", store.Recorder(sess.ID))
	evs, done := drain(r.Turn(context.Background(), l, conv, turn.Text("/review main.go")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	if n, ok := evs[0].(loop.Notice); !ok || n.Text != "expanded" {
		t.Errorf("first event %+v", evs[0])
	}
	if sent := p.Requests()[0].Messages[0].Text(); !strings.HasPrefix(sent, "Review @main.go") || !strings.Contains(sent, `<attached path="main.go">`) {
		t.Errorf("the model got %q", sent)
	}
}

func TestABlockedPromptIsNeverSent(t *testing.T) {
	store, sess, l, p, _ := setup(t, fake.Text("never"))
	r := &turn.Runner{Sessions: store, Submit: func(context.Context, string, turn.Prompt) turn.Submission {
		return turn.Submission{Blocked: "the hook says no secrets in prompts"}
	}}
	conv := conversation.New("", store.Recorder(sess.ID))
	_, done := drain(r.Turn(context.Background(), l, conv, turn.Text("my password is hunter2")))
	if done.Reason != loop.StopError || done.Err == nil || !strings.Contains(done.Err.Error(), "no secrets") {
		t.Errorf("done %+v", done)
	}
	if len(p.Requests()) != 0 || conv.Len() != 0 {
		t.Errorf("the prompt was sent or kept: %d requests, %d messages", len(p.Requests()), conv.Len())
	}
	if got, _ := store.Get(context.Background(), sess.ID); got.Title != "" {
		t.Errorf("session %+v", got)
	}
}
