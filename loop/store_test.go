package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// journal is an in-memory Store that writes down what it is told, in order.
type journal struct {
	mu      sync.Mutex
	entries []string
	failOn  string          // an entry prefix whose write fails
	waited  []time.Duration // the approval waits DecideToolCall was given
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

func (j *journal) SavePicks(ctx context.Context, picked []string) error {
	return j.add("picks "+strings.Join(picked, ","), ctx)
}

func (j *journal) RecordUsage(ctx context.Context, u providers.Usage) error {
	return j.add(fmt.Sprintf("usage %d in", u.InputTokens), ctx)
}

func (j *journal) SaveCompaction(ctx context.Context, c conversation.Compaction) error {
	return j.add(fmt.Sprintf("compaction from %d", c.FirstSeq), ctx)
}

func (j *journal) StartToolCall(ctx context.Context, c providers.ToolCall, _ time.Time) error {
	return j.add("start "+c.ID, ctx)
}

func (j *journal) DecideToolCall(ctx context.Context, c providers.ToolCall, allowed bool, why string, waited time.Duration) error {
	j.waited = append(j.waited, waited)
	return j.add(fmt.Sprintf("decide %s allowed=%v why=%s", c.ID, allowed, why), ctx)
}

func (j *journal) FinishToolCall(ctx context.Context, c providers.ToolCall, r providers.ToolResult, start, end time.Time) error {
	if end.Before(start) {
		return errors.New("finished before it started")
	}
	return j.add(fmt.Sprintf("finish %s error=%v", c.ID, r.IsError), ctx)
}

func TestStoreRecordsEveryMessageAndToolCallInOrder(t *testing.T) {
	j := &journal{}
	f := loopOver(t, loop.Config{Store: j}, []tools.Tool{echo("look", true)}, picker.ModeSwap, fake.New(
		fake.ToolCalls(fake.Call{ID: "c1", Name: "look", Arguments: `{}`}).WithUsage(10, 5),
		fake.Text("answer").WithUsage(10, 5),
	), "")
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("question")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	// In swap mode calling look, offered as a brief, picks it: the pick is
	// saved with the result that follows it.
	want := []string{"user:question", "assistant:+call c1 (5 out)", "start c1", "finish c1 error=false",
		"picks look", "tool:result c1", "assistant:answer (5 out)"}
	if strings.Join(j.entries, " | ") != strings.Join(want, " | ") {
		t.Errorf("recorded:\n%s\nwant:\n%s", strings.Join(j.entries, "\n"), strings.Join(want, "\n"))
	}
}

func TestStoreRecordsACancelledTurn(t *testing.T) {
	j := &journal{}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f := newFixture(t, loop.Config{Store: j}, nil, fake.Text("partial text here").WithPieceSize(4).HoldAfterEvents(2, hold))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ev := range f.loop.Run(ctx, f.conv, providers.UserText("go")) {
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
			fake.ToolCalls(fake.Call{ID: "c1", Name: "look", Arguments: `{}`}),
			fake.Text("never asked for"),
		)
		_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("question")))
		if done.Reason != loop.StopError || !strings.Contains(fmt.Sprint(done.Err), "disk full") {
			t.Errorf("failing on %q: done %+v", failOn, done)
		}
		// The prompt's record goes on beside the first request: its failure
		// ends the turn at the response's record, which waits for it.
		if n := len(f.provider.Requests()); n != 1 {
			t.Errorf("failing on %q: %d requests were sent, want 1", failOn, n)
		}
	}
}

// Each approval decision is recorded with its call, between its start and
// its finish, and reaches the finished event's Meta; read-only calls ask
// nobody and record no decision.
func TestApprovalDecisionsAreRecorded(t *testing.T) {
	tests := []struct {
		name     string
		decision loop.Decision
		meta     map[string]any // of the write call's ToolCallFinished
		entries  []string
	}{
		{
			name:     "allowed by the person",
			decision: loop.Decision{Allow: true, Why: "person: once"},
			meta:     map[string]any{"decision": "person: once", "tool": "meta"},
			entries:  []string{"start w", "decide w allowed=true why=person: once", "finish w error=false"},
		},
		{
			name:     "denied by a rule",
			decision: loop.Decision{Reason: "no", Why: `denied by rule "rm"`},
			meta:     map[string]any{"decision": `denied by rule "rm"`, "denied": true},
			entries:  []string{"start w", `decide w allowed=false why=denied by rule "rm"`, "finish w error=true"},
		},
		{
			name:     "allowed without a reason",
			decision: loop.Decision{Allow: true},
			meta:     map[string]any{"tool": "meta"},
			entries:  []string{"start w", "decide w allowed=true why=", "finish w error=false"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &journal{}
			toolMeta := map[string]any{"tool": "meta"}
			write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
				return tools.Result{Content: "written", Meta: toolMeta}, nil
			}}
			approve := func(_ context.Context, req loop.Approval) loop.Decision {
				if req.Def.ReadOnly {
					return loop.Decision{Allow: true} // as the policy allows a read-only call: without a word
				}
				return tt.decision
			}
			f := newFixture(t, loop.Config{Store: j, Approve: approve}, []tools.Tool{echo("look", true), write},
				fake.ToolCalls(
					fake.Call{ID: "r", Name: "look", Arguments: `{}`},
					fake.Call{ID: "w", Name: "write", Arguments: `{}`},
				),
				fake.Text("ok"),
			)
			evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
			if done.Reason != loop.StopAnswered {
				t.Fatalf("done %+v", done)
			}
			finished := map[string]loop.ToolCallFinished{}
			for _, ev := range evs {
				if ev, ok := ev.(loop.ToolCallFinished); ok {
					finished[ev.ID] = ev
				}
			}
			if got := finished["w"].Meta; !reflect.DeepEqual(got, tt.meta) {
				t.Errorf("Meta of the write call = %v, want %v", got, tt.meta)
			}
			if _, ok := finished["r"].Meta["decision"]; ok {
				t.Errorf("the read-only call has a decision: %v", finished["r"].Meta)
			}
			if len(toolMeta) != 1 {
				t.Errorf("the tool's own Meta map was written to: %v", toolMeta)
			}
			var calls []string
			for _, e := range j.entries {
				if strings.HasPrefix(e, "decide r") {
					t.Errorf("the read-only call recorded a decision: %q", e)
				}
				if verb, rest, _ := strings.Cut(e, " "); (verb == "start" || verb == "decide" || verb == "finish") && strings.HasPrefix(rest, "w") {
					calls = append(calls, e)
				}
			}
			if !slices.Equal(calls, tt.entries) {
				t.Errorf("recorded for the write call:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(tt.entries, "\n"))
			}
		})
	}
}

// A failed decision write ends the turn like any other failed write.
func TestAFailedDecisionWriteEndsTheTurn(t *testing.T) {
	j := &journal{failOn: "decide"}
	approve := func(context.Context, loop.Approval) loop.Decision { return loop.Decision{Allow: true, Why: "yolo"} }
	f := newFixture(t, loop.Config{Store: j, Approve: approve}, []tools.Tool{echo("write", false)},
		fake.ToolCalls(fake.Call{ID: "w", Name: "write", Arguments: `{}`}),
		fake.Text("never asked for"),
	)
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopError || !strings.Contains(fmt.Sprint(done.Err), "disk full") {
		t.Errorf("done %+v", done)
	}
}
