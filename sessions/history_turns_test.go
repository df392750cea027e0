package sessions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// An earlier turn's unanswered call was interrupted, whatever the status
// of the session's last turn says.
func TestSyntheticResultsFollowTheirOwnTurn(t *testing.T) {
	ctx := context.Background()
	s, err := sessions.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Create(ctx, sessions.NewSession{Dir: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	rec := s.Recorder(sess.ID)
	user := func(text string) providers.Message {
		return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
	}
	call := func(id string) providers.Message {
		return providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: id, Name: "bash", Arguments: "{}"}}}
	}
	for _, m := range []providers.Message{user("first"), call("crashed"), user("second"), call("cancelled")} {
		if err := rec.AppendMessage(ctx, m, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetStatus(ctx, sess.ID, sessions.StatusCancelled); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				got[r.CallID] = r.Content
			}
		}
	}
	if got["crashed"] != sessions.InterruptedResult || got["cancelled"] != sessions.CancelledResult {
		t.Errorf("synthetic results %v", got)
	}
}
