package loop_test

import (
	"context"
	"encoding/json"
	"github.com/agent-dev/agent/providers"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// testClock is a clock that moves only when told to.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// The time a person takes to answer the approval question is not the
// tool's run time: ToolCallFinished and the store get it apart.
func TestApprovalWaitIsApartFromTheRunTime(t *testing.T) {
	clock := &testClock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	j := &journal{}
	run := funcTool{"touch", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		clock.advance(12 * time.Millisecond) // the tool's own work
		return tools.Result{Content: "touched"}, nil
	}}
	approve := func(context.Context, loop.Approval) loop.Decision {
		clock.advance(3478 * time.Millisecond) // the person reads, then answers
		return loop.Decision{Allow: true, Why: "person: once"}
	}
	f := newFixture(t, loop.Config{Store: j, Approve: approve, Now: clock.now}, []tools.Tool{run},
		fake.ToolCalls(fake.Call{ID: "c1", Name: "touch", Arguments: `{}`}),
		fake.Text("done"),
	)
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("touch it")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	var fin *loop.ToolCallFinished
	for _, ev := range evs {
		if e, ok := ev.(loop.ToolCallFinished); ok {
			fin = &e
		}
	}
	if fin == nil {
		t.Fatal("no ToolCallFinished")
	}
	if fin.Duration != 12*time.Millisecond || fin.Waited != 3478*time.Millisecond {
		t.Errorf("duration %v, waited %v; want 12ms run and 3.478s wait", fin.Duration, fin.Waited)
	}
	if len(j.waited) != 1 || j.waited[0] != 3478*time.Millisecond {
		t.Errorf("the store was given waits %v, want [3.478s]", j.waited)
	}
}
