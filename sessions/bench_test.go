package sessions_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// BenchmarkAppendMessage records one assistant message with a tool call
// (one transaction: the message, the session's totals, the tool call
// record) into a session that already holds 1,000 messages. Besides ns/op
// it reports the median and 95th percentile of the single appends.
func BenchmarkAppendMessage(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	ss := create(b, s, b.TempDir(), "bench")
	rec := s.Recorder(ss.ID)
	fillSession(b, s, ss.ID, 1000)
	usage := providers.Usage{InputTokens: 12000, OutputTokens: 300}
	var took []time.Duration
	i := 0
	for b.Loop() {
		i++
		m := assistantMsg("I will look at the file that defines the loop and then change it.",
			providers.ToolCall{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: `{"path":"loop/loop.go"}`})
		start := time.Now()
		if err := rec.AppendMessage(ctx, m, usage); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	reportPercentiles(b, took)
}

// BenchmarkMessages loads a 10,000-message session (turns of a prompt, an
// assistant message with a tool call, its result and an answer, each a few
// hundred bytes) as the next request's history.
func BenchmarkMessages(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	ss := create(b, s, b.TempDir(), "bench")
	fillSession(b, s, ss.ID, 10000)
	for b.Loop() {
		msgs, err := s.Messages(ctx, ss.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(msgs) != 10000 {
			b.Fatalf("%d messages", len(msgs))
		}
	}
}

// BenchmarkList lists 1,000 sessions (every session, then a first page of
// 50 as a picker would).
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	dir := b.TempDir()
	for i := range 1000 {
		ss := create(b, s, dir, fmt.Sprint("session ", i))
		must(b, s.Recorder(ss.ID).AppendMessage(ctx, userMsg("hello"), providers.Usage{InputTokens: i}))
	}
	for _, limit := range []int{0, 50} {
		b.Run(fmt.Sprint("limit=", limit), func(b *testing.B) {
			want := 1000
			if limit > 0 {
				want = limit
			}
			for b.Loop() {
				list, err := s.List(ctx, sessions.ListOptions{Dir: dir, Limit: limit})
				if err != nil {
					b.Fatal(err)
				}
				if len(list) != want {
					b.Fatalf("%d sessions", len(list))
				}
			}
		})
	}
}

// fillSession appends n messages in turns of four, through the recorder,
// with the tool call started and finished.
func fillSession(b *testing.B, s *sessions.Store, id string, n int) {
	b.Helper()
	ctx := context.Background()
	rec := s.Recorder(id)
	body := fmt.Sprintf("%0300d", 0)
	now := time.Now()
	for i := 0; i < n; i += 4 {
		call := providers.ToolCall{ID: fmt.Sprint("call_", i), Name: "grep", Arguments: `{"pattern":"func main","path":"."}`}
		res := providers.ToolResult{CallID: call.ID, Name: call.Name, Content: body}
		for j, m := range []providers.Message{
			userMsg("please find the main function " + body[:50]),
			{Role: providers.RoleAssistant, Parts: []providers.Part{
				providers.Reasoning{Text: body[:100]}, providers.Text{Text: "Searching."}, call}},
			toolMsg(res),
			assistantMsg("It is in main.go. " + body),
		} {
			if i+j >= n {
				return
			}
			must(b, rec.AppendMessage(ctx, m, providers.Usage{InputTokens: 1000, OutputTokens: 100}))
			if j == 1 {
				must(b, rec.StartToolCall(ctx, call, now))
				must(b, rec.FinishToolCall(ctx, call, res, now, now.Add(3*time.Millisecond)))
			}
		}
	}
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*95/100].Nanoseconds()), "p95-ns")
}

// BenchmarkStepWrites records what one step of a turn writes: the
// assistant message with a bash call, the call's start, its approval and
// its result, then the tool result message, into a session of 1,000
// messages. "each" writes the call's three records in a transaction each,
// as the loop does for a call still running after 100 ms (five
// transactions a step); "grouped" in one (RecordToolCall), as it does for
// a call that ended sooner (three).
func BenchmarkStepWrites(b *testing.B) {
	for _, grouped := range []bool{false, true} {
		name := "each"
		if grouped {
			name = "grouped"
		}
		b.Run(name, func(b *testing.B) { benchmarkStepWrites(b, grouped) })
	}
}

func benchmarkStepWrites(b *testing.B, grouped bool) {
	ctx := context.Background()
	s := openStore(b)
	ss := create(b, s, b.TempDir(), "bench")
	rec := s.Recorder(ss.ID)
	fillSession(b, s, ss.ID, 1000)
	usage := providers.Usage{InputTokens: 12000, OutputTokens: 300}
	i := 0
	for b.Loop() {
		i++
		call := providers.ToolCall{ID: fmt.Sprint("call_", i), Name: "bash", Arguments: `{"command":"go test ./..."}`}
		now := time.Now()
		res := providers.ToolResult{CallID: call.ID, Name: call.Name, Content: "ok  \texample.com/calc\t0.003s\nexit status 0"}
		if err := rec.AppendMessage(ctx, assistantMsg("Running the tests.", call), usage); err != nil {
			b.Fatal(err)
		}
		var errs []error
		if grouped {
			errs = append(errs, rec.RecordToolCall(ctx, call, now, true, true, `rule "go test"`, 0, res, now.Add(3*time.Millisecond)))
		} else {
			errs = append(errs, rec.StartToolCall(ctx, call, now),
				rec.DecideToolCall(ctx, call, true, `rule "go test"`, 0),
				rec.FinishToolCall(ctx, call, res, now, now.Add(3*time.Millisecond)))
		}
		errs = append(errs, rec.AppendMessage(ctx, providers.Message{Role: providers.RoleTool, Parts: []providers.Part{res}}, providers.Usage{}))
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
