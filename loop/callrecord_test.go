package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// callJournal is a journal that records a whole call in one write
// (loop.CallStore), and tells when a call's start is written.
type callJournal struct {
	journal
	startWritten chan string // the call ids whose start was written on its own
}

func (j *callJournal) StartToolCall(ctx context.Context, c providers.ToolCall, at time.Time) error {
	err := j.journal.StartToolCall(ctx, c, at)
	if j.startWritten != nil {
		j.startWritten <- c.ID
	}
	return err
}

func (j *callJournal) RecordToolCall(ctx context.Context, c providers.ToolCall, started time.Time, decided, allowed bool, why string,
	waited time.Duration, r providers.ToolResult, finished time.Time) error {
	entry := "record " + c.ID
	if decided {
		entry += fmt.Sprintf(" allowed=%v why=%s", allowed, why)
	}
	return j.add(entry+fmt.Sprintf(" error=%v", r.IsError), ctx)
}

// callWrites are the journal's entries about tool calls, in order.
func (j *callJournal) callWrites() []string {
	var calls []string
	for _, e := range j.entries {
		for _, kind := range []string{"start", "decide", "finish", "record"} {
			if strings.HasPrefix(e, kind+" ") {
				calls = append(calls, e)
			}
		}
	}
	return calls
}

// A call that ends at once is recorded in one write, its decision with
// it: one transaction of the store instead of three.
func TestAQuickCallIsRecordedInOneWrite(t *testing.T) {
	j := &callJournal{}
	cfg := loop.Config{Store: j, Approve: func(context.Context, loop.Approval) loop.Decision {
		return loop.Decision{Allow: true, Why: `rule "write"`}
	}}
	f := loopOver(t, cfg, []tools.Tool{echo("write", false)}, picker.ModeSwap, fake.New(
		fake.ToolCalls(fake.Call{ID: "c1", Name: "write", Arguments: `{}`}),
		fake.Text("done"),
	), "")
	if _, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go"))); done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	calls := j.callWrites()
	if want := []string{`record c1 allowed=true why=rule "write" error=false`}; !slices.Equal(calls, want) {
		t.Errorf("the call's writes: %q, want %q", calls, want)
	}
}

// A call still running after a while has its start written on its own,
// and its decision with it, so another process (and a crash) sees it
// executing; its result follows in a write of its own.
func TestALongCallHasItsStartWrittenWhileItRuns(t *testing.T) {
	j := &callJournal{startWritten: make(chan string, 1)}
	slow := funcTool{"slow", false, func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		select {
		case <-j.startWritten: // the start is written before the call ends
			return tools.Result{Content: "done"}, nil
		case <-time.After(time.Minute): // a bound on failure, not a wait for success
			return tools.Result{Content: "the start was never written while the call ran", IsError: true}, nil
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	}}
	cfg := loop.Config{Store: j, Approve: func(context.Context, loop.Approval) loop.Decision {
		return loop.Decision{Allow: true, Why: "the person"}
	}}
	f := loopOver(t, cfg, []tools.Tool{slow}, picker.ModeSwap, fake.New(
		fake.ToolCalls(fake.Call{ID: "c1", Name: "slow", Arguments: `{}`}),
		fake.Text("done"),
	), "")
	if _, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go"))); done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	calls := j.callWrites()
	if want := []string{"start c1", "decide c1 allowed=true why=the person", "finish c1 error=false"}; !slices.Equal(calls, want) {
		t.Errorf("the call's writes: %q, want %q", calls, want)
	}
}

// flushJournal is a callJournal that holds a whole call's record until
// Flush (loop.Flusher), as package sessions does when no write comes to
// join; flushErr, when set, is Flush's failure.
type flushJournal struct {
	callJournal
	held     []string
	flushErr error
}

func (j *flushJournal) RecordToolCall(ctx context.Context, c providers.ToolCall, started time.Time, decided, allowed bool, why string,
	waited time.Duration, r providers.ToolResult, finished time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.held = append(j.held, "record "+c.ID)
	return nil
}

func (j *flushJournal) Flush(ctx context.Context) error {
	j.mu.Lock()
	held := j.held
	j.held = nil
	j.mu.Unlock()
	if j.flushErr != nil {
		return j.flushErr
	}
	for _, e := range held {
		if err := j.add(e, ctx); err != nil {
			return err
		}
	}
	return nil
}

// A fast call's record that the store holds is written after its
// result's message (it joins that write, or the flush after it), and
// before the next request.
func TestHeldCallRecordsAreWrittenAfterTheResults(t *testing.T) {
	j := &flushJournal{}
	f := loopOver(t, loop.Config{Store: j}, []tools.Tool{echo("look", true)}, picker.ModeSwap, fake.New(
		fake.ToolCalls(fake.Call{ID: "c1", Name: "look", Arguments: `{}`}),
		fake.Text("done"),
	), "")
	if _, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go"))); done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	result, record := slices.Index(j.entries, "tool:result c1"), slices.Index(j.entries, "record c1")
	if result < 0 || record < result {
		t.Errorf("entries %q: want the call's record after its result's", j.entries)
	}
}

// A held call record that cannot be written ends the turn with the error,
// before the next request, and says so once.
func TestAFailedFlushEndsTheTurn(t *testing.T) {
	j := &flushJournal{flushErr: errors.New("disk full")}
	model := fake.New(
		fake.ToolCalls(fake.Call{ID: "c1", Name: "look", Arguments: `{}`}),
		fake.Text("done"),
	)
	f := loopOver(t, loop.Config{Store: j}, []tools.Tool{echo("look", true)}, picker.ModeSwap, model, "")
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopError || !strings.Contains(fmt.Sprint(done.Err), "disk full") {
		t.Errorf("done %+v, want the failed flush's error", done)
	}
	if n := strings.Count(fmt.Sprint(done.Err), "disk full"); n != 1 {
		t.Errorf("the error %q tells the failure %d times", done.Err, n)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d requests were sent, want 1: the turn ends before the next", n)
	}
}
