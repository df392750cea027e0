package sessions_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

func TestStats(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	a, b := t.TempDir(), t.TempDir()
	t0 := time.Now()
	// record writes one assistant message asking for calls of tool, each
	// finished after the given duration (ms); negative: never finished.
	record := func(dir, tool string, ms []int, failed func(int) bool) {
		ss := create(t, s, dir, "")
		rec := s.Recorder(ss.ID)
		var calls []providers.ToolCall
		for i := range ms {
			calls = append(calls, providers.ToolCall{ID: "c" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Name: tool})
		}
		must(t, rec.AppendMessage(ctx, assistantMsg("", calls...), zeroUsage))
		for i, c := range calls {
			if ms[i] < 0 {
				continue
			}
			r := providers.ToolResult{CallID: c.ID, Name: tool, IsError: failed(i)}
			must(t, rec.FinishToolCall(ctx, c, r, t0, t0.Add(time.Duration(ms[i])*time.Millisecond)))
		}
	}
	var hundred []int
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, i)
	}
	record(a, "bash", hundred, func(i int) bool { return i%10 == 0 }) // 10 failures
	record(a, "read_file", []int{40, 10, 30, 20, -1}, func(int) bool { return false })
	record(b, "read_file", []int{1000}, func(int) bool { return true })

	all, err := s.Stats(ctx, "")
	must(t, err)
	want := []sessions.ToolStats{
		{Name: "bash", Calls: 100, Failures: 10, FailureRate: 0.1, MedianMS: 50.5, P95MS: 95.05},
		{Name: "read_file", Calls: 5, Failures: 1, FailureRate: 0.2, Unfinished: 1, MedianMS: 30, P95MS: 808},
	}
	if !statsEqual(all, want) {
		t.Errorf("Stats(all) =\n%+v\nwant\n%+v", all, want)
	}
	inA, err := s.Stats(ctx, a)
	must(t, err)
	want[1] = sessions.ToolStats{Name: "read_file", Calls: 4, Unfinished: 1, MedianMS: 25, P95MS: 38.5}
	if !statsEqual(inA, want) {
		t.Errorf("Stats(a) =\n%+v\nwant\n%+v", inA, want)
	}
	none, err := s.Stats(ctx, t.TempDir())
	must(t, err)
	if len(none) != 0 {
		t.Errorf("Stats of an empty directory = %+v", none)
	}
}

// statsEqual compares with a tolerance for the floating-point fields.
func statsEqual(got, want []sessions.ToolStats) bool {
	if len(got) != len(want) {
		return false
	}
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	for i := range got {
		g, w := got[i], want[i]
		if !near(g.FailureRate, w.FailureRate) || !near(g.MedianMS, w.MedianMS) || !near(g.P95MS, w.P95MS) {
			return false
		}
		g.FailureRate, g.MedianMS, g.P95MS = w.FailureRate, w.MedianMS, w.P95MS
		if !reflect.DeepEqual(g, w) {
			return false
		}
	}
	return true
}

// The time a person took to approve is kept apart from the run time
// (schema version 7), and denied calls count as denials, not failures.
func TestStatsKeepApprovalWaitAndDenialsApart(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	t0 := time.Now()
	ss := create(t, s, dir, "")
	rec := s.Recorder(ss.ID)
	ls := []providers.ToolCall{{ID: "a", Name: "bash"}, {ID: "b", Name: "bash"}, {ID: "c", Name: "bash"}, {ID: "d", Name: "bash"}}
	must(t, rec.AppendMessage(ctx, assistantMsg("", ls...), zeroUsage))
	// a: a person took 3478 ms to allow an ls that ran 5 ms.
	must(t, rec.StartToolCall(ctx, ls[0], t0))
	must(t, rec.DecideToolCall(ctx, ls[0], true, "person: once", 3478*time.Millisecond))
	must(t, rec.FinishToolCall(ctx, ls[0], providers.ToolResult{CallID: "a", Name: "bash"}, t0, t0.Add(3483*time.Millisecond)))
	// b: a rule allowed it at once; it ran 7 ms.
	must(t, rec.StartToolCall(ctx, ls[1], t0))
	must(t, rec.DecideToolCall(ctx, ls[1], true, `rule: allow "ls"`, 0))
	must(t, rec.FinishToolCall(ctx, ls[1], providers.ToolResult{CallID: "b", Name: "bash"}, t0, t0.Add(7*time.Millisecond)))
	// c: a person denied it after 1000 ms.
	must(t, rec.StartToolCall(ctx, ls[2], t0))
	must(t, rec.DecideToolCall(ctx, ls[2], false, "denied by the person", time.Second))
	must(t, rec.FinishToolCall(ctx, ls[2], providers.ToolResult{CallID: "c", Name: "bash", IsError: true, Content: "denied"}, t0, t0.Add(time.Second)))
	// d: allowed by a person after 2000 ms, ran 3 ms and failed.
	must(t, rec.StartToolCall(ctx, ls[3], t0))
	must(t, rec.DecideToolCall(ctx, ls[3], true, "person: for the session", 2*time.Second))
	must(t, rec.FinishToolCall(ctx, ls[3], providers.ToolResult{CallID: "d", Name: "bash", IsError: true}, t0, t0.Add(2003*time.Millisecond)))

	got, err := s.Stats(ctx, dir)
	must(t, err)
	want := []sessions.ToolStats{{Name: "bash", Calls: 3, Failures: 1, FailureRate: 1.0 / 3, Denied: 1,
		MedianMS: 5, P95MS: 6.8, Asked: 3, WaitMedianMS: 2000}}
	if !statsEqual(got, want) {
		t.Errorf("Stats =\n%+v\nwant\n%+v", got, want)
	}
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if calls[0].Duration != 5*time.Millisecond || calls[0].ApprovalWait != 3478*time.Millisecond {
		t.Errorf("call a: run %v, wait %v; want 5ms and 3.478s", calls[0].Duration, calls[0].ApprovalWait)
	}
}

// Calls recorded before schema version 7 have no approval wait: stats
// count them (their durations include the wait, which was not kept apart
// then), never as asked, and a denial among them is a denial, not a
// failure.
func TestStatsOfCallsRecordedBeforeVersion7(t *testing.T) {
	ctx := context.Background()
	s := migrated(t, 6,
		`INSERT INTO sessions (id, title, dir, model, status, created_at, updated_at, message_count)
			VALUES ('0123456789ab', 'old', '/w', 'm', 'completed', 1, 2, 2)`,
		`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES
			('0123456789ab', 1, 'user', '[{"type":"text","text":"hi"}]', 1),
			('0123456789ab', 2, 'assistant', '[{"type":"tool_call","id":"c1","name":"bash","arguments":"{}"},{"type":"tool_call","id":"c2","name":"bash","arguments":"{}"}]', 1)`,
		`INSERT INTO tool_calls (session_id, message_id, call_id, name, arguments, result, status, started_at, finished_at, duration_ms, decision) VALUES
			('0123456789ab', 2, 'c1', 'bash', '{}', 'done', 'completed', 1000, 4478, 3478, 'allowed: person: once'),
			('0123456789ab', 2, 'c2', 'bash', '{}', 'denied', 'failed', 1000, 2000, 1000, 'denied by the person')`,
	)
	got, err := s.Stats(ctx, "")
	must(t, err)
	want := []sessions.ToolStats{{Name: "bash", Calls: 1, Denied: 1, MedianMS: 3478, P95MS: 3478}}
	if !statsEqual(got, want) {
		t.Errorf("Stats =\n%+v\nwant\n%+v", got, want)
	}
}

// A call allowed by an answer remembered for the session was decided at
// once, without a question: it is not counted as asked, and its zero wait
// does not pull down the median time people took to answer.
func TestStatsDoNotCountRememberedAnswersAsAsked(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	t0 := time.Now()
	ss := create(t, s, dir, "")
	rec := s.Recorder(ss.ID)
	ls := []providers.ToolCall{{ID: "a", Name: "edit_file"}, {ID: "b", Name: "edit_file"}, {ID: "c", Name: "edit_file"}}
	must(t, rec.AppendMessage(ctx, assistantMsg("", ls...), zeroUsage))
	// a: a person took 4 s to allow edits for the session; b and c were
	// allowed by that answer, at once.
	waits := []time.Duration{4 * time.Second, 0, 0}
	whys := []string{"person: for the session", "person: allowed edits for the session", "person: allowed edits for the session"}
	for i, c := range ls {
		must(t, rec.StartToolCall(ctx, c, t0))
		must(t, rec.DecideToolCall(ctx, c, true, whys[i], waits[i]))
		must(t, rec.FinishToolCall(ctx, c, providers.ToolResult{CallID: c.ID, Name: c.Name}, t0, t0.Add(waits[i]+2*time.Millisecond)))
	}
	got, err := s.Stats(ctx, dir)
	must(t, err)
	if len(got) != 1 || got[0].Asked != 1 || got[0].WaitMedianMS != 4000 || got[0].Calls != 3 {
		t.Errorf("Stats = %+v, want 3 calls, 1 asked, a median wait of 4000 ms", got)
	}
}
