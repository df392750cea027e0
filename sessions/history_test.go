package sessions_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

func TestMessagesSynthesizesMissingResults(t *testing.T) {
	c1, c2, c3 := bashCall("c1"), bashCall("c2"), bashCall("c3")
	r1 := providers.ToolResult{CallID: "c1", Name: "bash", Content: "out c1"}
	r2 := providers.ToolResult{CallID: "c2", Name: "bash", Content: "out c2"}
	synth := func(c providers.ToolCall, content string) providers.Message {
		return toolMsg(providers.ToolResult{CallID: c.ID, Name: c.Name, Content: content, IsError: true})
	}
	asking := assistantMsg("three calls", c1, c2, c3)
	tests := []struct {
		name   string
		status sessions.Status
		// write records the conversation; finish records tool results that
		// never became messages.
		write  []providers.Message
		finish []providers.ToolResult
		want   []providers.Message
	}{
		{
			name:   "interrupted, none answered",
			status: sessions.StatusRunning,
			write:  []providers.Message{userMsg("go"), asking},
			want: []providers.Message{userMsg("go"), asking,
				synth(c1, sessions.InterruptedResult), synth(c2, sessions.InterruptedResult), synth(c3, sessions.InterruptedResult)},
		},
		{
			name:   "cancelled, partially answered",
			status: sessions.StatusCancelled,
			write:  []providers.Message{userMsg("go"), asking, toolMsg(r2)},
			want: []providers.Message{userMsg("go"), asking, toolMsg(r2),
				synth(c1, sessions.CancelledResult), synth(c3, sessions.CancelledResult)},
		},
		{
			name:   "failed, then the user went on",
			status: sessions.StatusFailed,
			write:  []providers.Message{userMsg("go"), asking, toolMsg(r1), userMsg("what happened?"), assistantMsg("sorry")},
			want: []providers.Message{userMsg("go"), asking, toolMsg(r1),
				synth(c2, sessions.InterruptedResult), synth(c3, sessions.InterruptedResult),
				userMsg("what happened?"), assistantMsg("sorry")},
		},
		{
			name:   "finished but its message was never written",
			status: sessions.StatusRunning,
			write:  []providers.Message{userMsg("go"), asking, toolMsg(r1)},
			finish: []providers.ToolResult{r2},
			want: []providers.Message{userMsg("go"), asking, toolMsg(r1), toolMsg(r2),
				synth(c3, sessions.InterruptedResult)},
		},
		{
			name:   "complete turn untouched",
			status: sessions.StatusCompleted,
			write: []providers.Message{userMsg("go"), assistantMsg("one", c1), toolMsg(r1), assistantMsg("done"),
				userMsg("more"), assistantMsg("two", c2), toolMsg(r2), assistantMsg("done")},
			want: []providers.Message{userMsg("go"), assistantMsg("one", c1), toolMsg(r1), assistantMsg("done"),
				userMsg("more"), assistantMsg("two", c2), toolMsg(r2), assistantMsg("done")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t)
			ss := create(t, s, t.TempDir(), "")
			rec := s.Recorder(ss.ID)
			for _, m := range tt.write {
				must(t, rec.AppendMessage(ctx, m, zeroUsage))
			}
			now := time.Now()
			for _, r := range tt.finish {
				c := providers.ToolCall{ID: r.CallID, Name: r.Name}
				must(t, rec.FinishToolCall(ctx, c, r, now, now))
			}
			must(t, s.SetStatus(ctx, ss.ID, tt.status))
			got, err := s.Messages(ctx, ss.ID)
			must(t, err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Messages:\n%+v\nwant\n%+v", got, tt.want)
			}
			// The stored conversation itself is unchanged.
			recs, err := s.MessageRecords(ctx, ss.ID)
			must(t, err)
			if len(recs) != len(tt.write) {
				t.Errorf("%d records, want %d", len(recs), len(tt.write))
			}
		})
	}
}

func TestUnknownPartTypeOnLoad(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	must(t, s.Recorder(ss.ID).AppendMessage(ctx, userMsg("hi"), zeroUsage))
	if _, err := sessions.DB(s).Exec(`UPDATE messages SET parts = '[{"type":"hologram"}]'`); err != nil {
		t.Fatal(err)
	}
	_, err := s.Messages(ctx, ss.ID)
	want := "reading messages of session " + ss.ID + `: message 1: part 0: unknown part type "hologram"`
	if err == nil || err.Error() != want {
		t.Errorf("Messages = %v, want %q", err, want)
	}
}
