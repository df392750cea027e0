package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// The recorder is the loop's store.
var _ loop.CallStore = (*sessions.Recorder)(nil)

func assistantMsg(text string, calls ...providers.ToolCall) providers.Message {
	m := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: text}}}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return m
}

func toolMsg(r providers.ToolResult) providers.Message {
	return providers.Message{Role: providers.RoleTool, Parts: []providers.Part{r}}
}

func bashCall(id string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: "bash", Arguments: fmt.Sprintf(`{"command":"echo %s"}`, id)}
}

// writeTurn records a complete turn the way the loop does: the prompt, an
// assistant message asking for the calls, each call started and finished,
// then their results.
func writeTurn(t testing.TB, rec *sessions.Recorder, callIDs ...string) {
	t.Helper()
	ctx := context.Background()
	var calls []providers.ToolCall
	for _, id := range callIDs {
		calls = append(calls, bashCall(id))
	}
	must(t, rec.AppendMessage(ctx, userMsg("run them"), zeroUsage))
	must(t, rec.AppendMessage(ctx, assistantMsg("running", calls...), providers.Usage{InputTokens: 10, OutputTokens: 5}))
	var results []providers.ToolResult
	for _, c := range calls {
		start := time.Now()
		must(t, rec.StartToolCall(ctx, c, start))
		r := providers.ToolResult{CallID: c.ID, Name: c.Name, Content: "out " + c.ID}
		must(t, rec.FinishToolCall(ctx, c, r, start, start.Add(15*time.Millisecond)))
		results = append(results, r)
	}
	for _, r := range results {
		must(t, rec.AppendMessage(ctx, toolMsg(r), zeroUsage))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRecordTurn(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	if rec.SessionID() != ss.ID {
		t.Errorf("SessionID = %s", rec.SessionID())
	}
	reasoning := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
		providers.Reasoning{Text: "hmm"}, providers.Text{Text: "let me look"},
		providers.ToolCall{ID: "call_a", Name: "read_file", Arguments: `{"path":"x"}`},
		providers.ToolCall{ID: "call_b", Name: "bash", Arguments: `{"command":"false"`},
	}}
	usage := providers.Usage{InputTokens: 1000, OutputTokens: 50, CachedInputTokens: 900, ReasoningTokens: 7, CacheWriteTokens: 60}
	must(t, rec.AppendMessage(ctx, userMsg("look at x"), zeroUsage))
	must(t, rec.AppendMessage(ctx, reasoning, usage))

	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 || calls[0].Status != sessions.ToolPending || calls[1].Status != sessions.ToolPending ||
		calls[0].MessageSeq != 2 || calls[1].Arguments != `{"command":"false"` || !calls[0].StartedAt.IsZero() {
		t.Fatalf("after AppendMessage: %+v", calls)
	}

	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := reasoning.ToolCalls()[0], reasoning.ToolCalls()[1]
	ra := providers.ToolResult{CallID: "call_a", Name: "read_file", Content: "contents of x"}
	rb := providers.ToolResult{CallID: "call_b", Name: "bash", Content: "invalid arguments", IsError: true}
	must(t, rec.StartToolCall(ctx, a, t0))
	calls, err = s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if calls[0].Status != sessions.ToolExecuting || !calls[0].StartedAt.Equal(t0) {
		t.Fatalf("after StartToolCall: %+v", calls[0])
	}
	must(t, rec.FinishToolCall(ctx, a, ra, t0, t0.Add(1234*time.Millisecond)))
	// b finishes without a recorded start (it failed before running).
	must(t, rec.FinishToolCall(ctx, b, rb, t0, t0.Add(time.Millisecond)))
	must(t, rec.AppendMessage(ctx, toolMsg(ra), zeroUsage))
	must(t, rec.AppendMessage(ctx, toolMsg(rb), zeroUsage))
	final := assistantMsg("done")
	must(t, rec.AppendMessage(ctx, final, usage))

	calls, err = s.ToolCalls(ctx, ss.ID)
	must(t, err)
	want := []sessions.ToolCallRecord{
		{SessionID: ss.ID, MessageSeq: 2, CallID: "call_a", Name: "read_file", Arguments: `{"path":"x"}`,
			Status: sessions.ToolCompleted, Result: "contents of x", StartedAt: t0,
			FinishedAt: t0.Add(1234 * time.Millisecond), Duration: 1234 * time.Millisecond},
		{SessionID: ss.ID, MessageSeq: 2, CallID: "call_b", Name: "bash", Arguments: `{"command":"false"`,
			Status: sessions.ToolFailed, Result: "invalid arguments", IsError: true, StartedAt: t0,
			FinishedAt: t0.Add(time.Millisecond), Duration: time.Millisecond},
	}
	for i := range calls {
		calls[i].StartedAt, calls[i].FinishedAt = calls[i].StartedAt.UTC(), calls[i].FinishedAt.UTC()
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("tool calls\n%+v\nwant\n%+v", calls, want)
	}

	wantMsgs := []providers.Message{userMsg("look at x"), reasoning, toolMsg(ra), toolMsg(rb), final}
	msgs, err := s.Messages(ctx, ss.ID)
	must(t, err)
	if !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("Messages\n%+v\nwant\n%+v", msgs, wantMsgs)
	}
	recs, err := s.MessageRecords(ctx, ss.ID)
	must(t, err)
	for i, r := range recs {
		if r.Seq != i+1 || !reflect.DeepEqual(r.Message, wantMsgs[i]) || r.CreatedAt.IsZero() {
			t.Errorf("record %d = %+v", i, r)
		}
	}
	if recs[1].Usage != usage || recs[0].Usage != zeroUsage {
		t.Errorf("usage of the records: %+v, %+v", recs[0].Usage, recs[1].Usage)
	}
	got, err := s.Get(ctx, ss.ID)
	must(t, err)
	if got.Usage != usage.Add(usage) || got.Messages != 5 {
		t.Errorf("session totals: %+v, %d messages", got.Usage, got.Messages)
	}
}

// A model may reuse call ids across turns ("glob:0"): each write is about
// the latest assistant message that asked for that id.
func TestRepeatedCallIDs(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	writeTurn(t, rec, "glob:0")
	must(t, rec.AppendMessage(ctx, assistantMsg("again", bashCall("glob:0")), zeroUsage))
	now := time.Now()
	must(t, rec.StartToolCall(ctx, bashCall("glob:0"), now))
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 || calls[0].Status != sessions.ToolCompleted || calls[1].Status != sessions.ToolExecuting ||
		calls[1].MessageSeq != 4 {
		t.Errorf("calls %+v", calls)
	}
}

// Tool-call writes of one turn come from several goroutines at once.
func TestConcurrentToolCalls(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	const n = 32
	var calls []providers.ToolCall
	for i := range n {
		calls = append(calls, bashCall(fmt.Sprint("call_", i)))
	}
	must(t, rec.AppendMessage(ctx, assistantMsg("many", calls...), zeroUsage))
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i, c := range calls {
		wg.Go(func() {
			start := time.Now()
			if err := rec.StartToolCall(ctx, c, start); err != nil {
				errs <- err
			}
			r := providers.ToolResult{CallID: c.ID, Name: c.Name, Content: c.ID, IsError: i%4 == 0}
			if err := rec.FinishToolCall(ctx, c, r, start, start.Add(time.Duration(i)*time.Millisecond)); err != nil {
				errs <- err
			}
		})
	}
	// Readers at the same time.
	wg.Go(func() {
		for range 20 {
			if _, err := s.Messages(ctx, ss.ID); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	for i, c := range got {
		want := sessions.ToolCompleted
		if i%4 == 0 {
			want = sessions.ToolFailed
		}
		if c.CallID != calls[i].ID || c.Status != want || c.Result != c.CallID || c.Duration != time.Duration(i)*time.Millisecond {
			t.Errorf("call %d: %+v", i, c)
		}
	}
}

// sessionCalling is a new session whose prompt was answered with calls,
// with its store and recorder.
func sessionCalling(t *testing.T, calls ...providers.ToolCall) (*sessions.Store, *sessions.Session, *sessions.Recorder) {
	t.Helper()
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	must(t, rec.AppendMessage(ctx, userMsg("go"), zeroUsage))
	must(t, rec.AppendMessage(ctx, assistantMsg("calling", calls...), zeroUsage))
	return s, ss, rec
}

// A call recorded in one write (RecordToolCall) reads back as the three
// writes of its start, decision and result leave it; a call that was never
// recorded is ErrNotFound and changes nothing.
func TestAToolCallRecordedInOneWrite(t *testing.T) {
	ctx := context.Background()
	a := providers.ToolCall{ID: "call_a", Name: "bash", Arguments: `{"command":"go test ./..."}`}
	b := providers.ToolCall{ID: "call_b", Name: "bash", Arguments: `{"command":"go vet ./..."}`}
	s, ss, rec := sessionCalling(t, a, b)
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	ra := providers.ToolResult{CallID: a.ID, Name: a.Name, Content: "ok"}
	rb := providers.ToolResult{CallID: b.ID, Name: b.Name, Content: "vet: 1 issue", IsError: true}
	must(t, rec.RecordToolCall(ctx, a, t0, true, true, `rule "go test"`, 300*time.Millisecond, ra, t0.Add(time.Second)))
	must(t, rec.StartToolCall(ctx, b, t0))
	must(t, rec.DecideToolCall(ctx, b, true, `rule "go test"`, 300*time.Millisecond))
	must(t, rec.FinishToolCall(ctx, b, rb, t0, t0.Add(time.Second)))
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	one, three := calls[0], calls[1]
	if one.Status != sessions.ToolCompleted || three.Status != sessions.ToolFailed || one.Decision != three.Decision ||
		one.Duration != three.Duration || one.Duration != 700*time.Millisecond || one.ApprovalWait != three.ApprovalWait ||
		!one.StartedAt.Equal(three.StartedAt) || !one.FinishedAt.Equal(three.FinishedAt) || one.Result != "ok" {
		t.Errorf("in one write: %+v\nin three: %+v", one, three)
	}
	before, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	ghost := providers.ToolCall{ID: "call_ghost", Name: "bash"}
	must(t, rec.RecordToolCall(ctx, ghost, t0, false, false, "", 0, ra, t0))
	if err := rec.Flush(ctx); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("an unknown call: %v, want ErrNotFound", err)
	}
	if after, _ := s.ToolCalls(ctx, ss.ID); !reflect.DeepEqual(after, before) {
		t.Errorf("an unknown call changed the calls:\n%+v\n%+v", before, after)
	}
	// It does not stand in the way of the session's next writes.
	must(t, rec.AppendMessage(ctx, toolMsg(rb), zeroUsage))
	must(t, rec.Flush(ctx))
}

// A model may repeat a call id within a message: each held record of it
// (RecordToolCall) is written to a record of its own, in order.
func TestHeldCallsOfARepeatedIDEachFindTheirRecord(t *testing.T) {
	ctx := context.Background()
	a := providers.ToolCall{ID: "dup", Name: "read_file", Arguments: `{"path":"a"}`}
	b := providers.ToolCall{ID: "dup", Name: "read_file", Arguments: `{"path":"b"}`}
	s, ss, rec := sessionCalling(t, a, b)
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, rec.RecordToolCall(ctx, a, t0, false, false, "", 0, providers.ToolResult{CallID: "dup", Content: "first"}, t0.Add(time.Millisecond)))
	must(t, rec.RecordToolCall(ctx, b, t0, true, false, "denied by a rule", 0, providers.ToolResult{CallID: "dup", Content: "second", IsError: true}, t0.Add(2*time.Millisecond)))
	must(t, rec.Flush(ctx))
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 || calls[0].Result != "first" || calls[0].Status != sessions.ToolCompleted || calls[0].Decision != "" ||
		calls[1].Result != "second" || calls[1].Status != sessions.ToolFailed || !strings.HasPrefix(calls[1].Decision, "denied") {
		t.Fatalf("the calls of a repeated id: %+v", calls)
	}
}

// A fast call's record (RecordToolCall) joins the session's next write: the
// message of its result lands with it, in one transaction, and another
// process sees both at once.
func TestAFastCallsRecordJoinsTheNextWrite(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	if s.Recorder(ss.ID) != rec {
		t.Fatal("two recorders for one session: the one that holds a record would not see the other's writes")
	}
	a := providers.ToolCall{ID: "call_a", Name: "read_file", Arguments: `{"path":"go.mod"}`}
	must(t, rec.AppendMessage(ctx, userMsg("read it"), zeroUsage))
	must(t, rec.AppendMessage(ctx, assistantMsg("reading", a), zeroUsage))
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	res := providers.ToolResult{CallID: a.ID, Name: a.Name, Content: "module example.com/m"}
	must(t, rec.RecordToolCall(ctx, a, t0, false, false, "", 0, res, t0.Add(3*time.Millisecond)))
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 1 || calls[0].Status != sessions.ToolPending {
		t.Fatalf("before the next write: %+v, want the call pending", calls)
	}
	must(t, rec.AppendMessage(ctx, toolMsg(res), zeroUsage))
	calls, err = s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 1 || calls[0].Status != sessions.ToolCompleted || calls[0].Result != res.Content {
		t.Fatalf("after the result's message: %+v, want the call completed", calls)
	}
}

// A session's writes, one after another, keep to one connection of the
// database: the statements they run are prepared on the connection their
// transaction takes, not on a second one opened for it (each connection
// parses the whole schema first).
func TestWritesOneAfterAnotherKeepToOneConnection(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	rec := s.Recorder(create(t, s, t.TempDir(), "").ID)
	call := providers.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}
	must(t, rec.AppendMessage(ctx, userMsg("read a"), zeroUsage))
	must(t, rec.AppendMessage(ctx, assistantMsg("", call), zeroUsage))
	now := time.Now()
	must(t, rec.RecordToolCall(ctx, call, now, true, true, "", 0, providers.ToolResult{CallID: "c1", Content: "x"}, now))
	if n := sessions.DB(s).Stats().OpenConnections; n != 1 {
		t.Errorf("%d connections open, want 1", n)
	}
}

// A session's updated time follows its records to within five seconds:
// records closer together than that leave it (each write of it rewrites
// two indexes), and the turn's end sets it exactly.
func TestUpdatedTimeFollowsRecordsWithinFiveSeconds(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	now := t0
	sessions.SetClock(s, func() time.Time { return now })
	ss := create(t, s, t.TempDir(), "clock")
	rec := s.Recorder(ss.ID)
	updated := func() time.Time {
		t.Helper()
		got, err := s.Get(ctx, ss.ID)
		must(t, err)
		return got.UpdatedAt
	}
	for _, step := range []struct {
		after time.Duration
		want  time.Duration
	}{{0, 0}, {time.Second, 0}, {4 * time.Second, 0}, {6 * time.Second, 6 * time.Second}, {7 * time.Second, 6 * time.Second}} {
		now = t0.Add(step.after)
		must(t, rec.AppendMessage(ctx, userMsg("at "+step.after.String()), zeroUsage))
		if got := updated(); !got.Equal(t0.Add(step.want)) {
			t.Errorf("after a message at +%v: updated +%v, want +%v", step.after, got.Sub(t0), step.want)
		}
	}
	now = t0.Add(8 * time.Second)
	must(t, s.SetStatus(ctx, ss.ID, sessions.StatusCompleted))
	if got := updated(); !got.Equal(now) {
		t.Errorf("after the turn's end at +8s: updated +%v", got.Sub(t0))
	}
}
