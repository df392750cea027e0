package loop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// journal is an in-memory Store that writes down what it is told, in order.
type journal struct {
	mu      sync.Mutex
	entries []string
	failOn  string // an entry prefix whose write fails
}

func (j *journal) add(entry string, ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if ctx.Err() != nil {
		return fmt.Errorf("write with a cancelled context: %w", ctx.Err())
	}
	if j.failOn != "" && strings.HasPrefix(entry, j.failOn) {
		return errors.New("disk full")
	}
	j.entries = append(j.entries, entry)
	return nil
}

func (j *journal) AppendMessage(ctx context.Context, m providers.Message, u providers.Usage) error {
	desc := string(m.Role) + ":" + m.Text()
	for _, c := range m.ToolCalls() {
		desc += "+call " + c.ID
	}
	for _, p := range m.Parts {
		if r, ok := p.(providers.ToolResult); ok {
			desc += "result " + r.CallID
		}
	}
	if u.OutputTokens > 0 {
		desc += fmt.Sprintf(" (%d out)", u.OutputTokens)
	}
	return j.add(desc, ctx)
}

func (j *journal) StartToolCall(ctx context.Context, c providers.ToolCall, _ time.Time) error {
	return j.add("start "+c.ID, ctx)
}

func (j *journal) FinishToolCall(ctx context.Context, c providers.ToolCall, r providers.ToolResult, start, end time.Time) error {
	if end.Before(start) {
		return errors.New("finished before it started")
	}
	return j.add(fmt.Sprintf("finish %s error=%v", c.ID, r.IsError), ctx)
}

func TestStoreRecordsEveryMessageAndToolCallInOrder(t *testing.T) {
	j := &journal{}
	f := newFixture(t, loop.Config{Store: j}, []tools.Tool{echo("look", true)},
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "look", Arguments: `{}`}),
		scripted.Text("answer"),
	)
	_, done := collect(f.loop.Run(context.Background(), nil, "question"))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	want := []string{"user:question", "assistant:+call c1 (5 out)", "start c1", "finish c1 error=false", "tool:result c1", "assistant:answer (5 out)"}
	if strings.Join(j.entries, " | ") != strings.Join(want, " | ") {
		t.Errorf("recorded:\n%s\nwant:\n%s", strings.Join(j.entries, "\n"), strings.Join(want, "\n"))
	}
}

func TestStoreRecordsACancelledTurn(t *testing.T) {
	j := &journal{}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f := newFixture(t, loop.Config{Store: j}, nil, scripted.Text("partial text here").WithPieceSize(4).HoldAfterEvents(2, hold))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ev := range f.loop.Run(ctx, nil, "go") {
		if _, ok := ev.(loop.TextDelta); ok {
			cancel()
		}
	}
	if len(j.entries) != 2 || j.entries[0] != "user:go" || !strings.HasPrefix(j.entries[1], "assistant:part") {
		t.Errorf("recorded %q; want the prompt and the partial answer", j.entries)
	}
}

func TestAFailedWriteEndsTheTurn(t *testing.T) {
	for _, failOn := range []string{"user:", "finish", "tool:"} {
		j := &journal{failOn: failOn}
		f := newFixture(t, loop.Config{Store: j}, []tools.Tool{echo("look", true)},
			scripted.ToolCalls(scripted.Call{ID: "c1", Name: "look", Arguments: `{}`}),
			scripted.Text("never asked for"),
		)
		_, done := collect(f.loop.Run(context.Background(), nil, "question"))
		if done.Reason != loop.StopError || !strings.Contains(fmt.Sprint(done.Err), "disk full") {
			t.Errorf("failing on %q: done %+v", failOn, done)
		}
		if n := len(f.srv.Requests()); (failOn == "user:" && n != 0) || (failOn != "user:" && n != 1) {
			t.Errorf("failing on %q: %d requests were sent", failOn, n)
		}
	}
}
