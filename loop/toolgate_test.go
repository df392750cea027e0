package loop_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// runInBackground runs a turn of f on ctx and delivers its Done.
func runInBackground(ctx context.Context, f fixture) <-chan loop.Done {
	finished := make(chan loop.Done, 1)
	go func() {
		_, done := collect(f.loop.Run(ctx, f.conv, providers.UserText("go")))
		finished <- done
	}()
	return finished
}

// closedGate is a tool gate that holds a turn until it is opened, noting
// how many requests the provider had had (requests, set once the fixture
// is made) each time a turn reached it.
type closedGate struct {
	requests func() int
	waited   chan int
	release  chan struct{}
	open     atomic.Bool
}

func newClosedGate() *closedGate {
	return &closedGate{waited: make(chan int, 4), release: make(chan struct{})}
}

// wait is the gate's wait (loop.WithToolGate).
func (g *closedGate) wait(ctx context.Context) {
	g.waited <- g.requests()
	select {
	case <-g.release:
		g.open.Store(true)
	case <-ctx.Done():
	}
}

// await waits for the turn running in finished to reach the gate, checks
// it had made want requests then, opens the gate and checks the turn's
// answer was "done".
func (g *closedGate) await(t *testing.T, finished <-chan loop.Done, want int, why string) {
	t.Helper()
	var done loop.Done
	select {
	case n := <-g.waited:
		if n != want {
			t.Errorf("the gate was reached after %d requests, want %d (%s)", n, want, why)
		}
		close(g.release)
		done = <-finished
	case done = <-finished:
		t.Error("the turn ended without waiting for its gate")
	}
	if done.Err != nil || done.Answer != "done" {
		t.Fatalf("done %+v", done)
	}
	if len(g.waited) != 0 {
		t.Errorf("the gate was waited for %d more times; once a turn is enough", len(g.waited))
	}
}

// A turn's tool gate (the prompt's checkpoint) is waited for once, after
// the first request went out and before any tool call runs: the request is
// not held back by it, and no tool touches a file before it opens.
func TestToolGateHoldsToolsNotTheRequest(t *testing.T) {
	gate := newClosedGate()
	var ranClosed atomic.Bool
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		if !gate.open.Load() {
			ranClosed.Store(true)
		}
		return tools.Result{Content: "written"}, nil
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{write},
		fake.ToolCalls(fake.Call{ID: "a", Name: "write", Arguments: `{}`}),
		fake.ToolCalls(fake.Call{ID: "b", Name: "write", Arguments: `{}`}),
		fake.Text("done"),
	)
	gate.requests = func() int { return len(f.provider.Requests()) }
	ctx := loop.WithToolGate(context.Background(), gate.wait)
	gate.await(t, runInBackground(ctx, f), 1, "the first request must not wait for it")
	if ranClosed.Load() {
		t.Error("a tool call ran before the gate opened")
	}
	if rs := resultsOf(f.conv.Messages()); len(rs) != 2 || rs[0].Content != "written" {
		t.Errorf("results %+v", rs)
	}
}

// A turn cancelled while its gate holds the tools stops: the gate sees the
// turn's context end.
func TestToolGateEndsWithTheTurn(t *testing.T) {
	ran := false
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		return tools.Result{Content: "written"}, nil
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{write},
		fake.ToolCalls(fake.Call{ID: "a", Name: "write", Arguments: `{}`}),
		fake.Text("done"),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reached := make(chan struct{})
	ctx = loop.WithToolGate(ctx, func(ctx context.Context) {
		close(reached)
		<-ctx.Done()
	})
	finished := runInBackground(ctx, f)
	var done loop.Done
	select {
	case <-reached:
		cancel()
		done = <-finished
	case done = <-finished:
		t.Error("the turn ended without waiting for its gate")
	}
	if done.Reason != loop.StopCancelled {
		t.Errorf("reason %v, want cancelled", done.Reason)
	}
	if ran {
		t.Error("the tool ran after the turn was cancelled at its gate")
	}
}

// A gate for some calls only (the prompt's checkpoint, which calls that
// change nothing need not wait for): steps of other calls run while it is
// closed, and the first step with a call it is for waits for it.
func TestToolGateForSomeCallsLetsTheOthersRun(t *testing.T) {
	gate := newClosedGate()
	var readsWhileClosed, writesWhileClosed atomic.Int32
	tool := func(name string, readOnly bool, count *atomic.Int32) funcTool {
		return funcTool{name, readOnly, func(context.Context, json.RawMessage) (tools.Result, error) {
			if !gate.open.Load() {
				count.Add(1)
			}
			return tools.Result{Content: name}, nil
		}}
	}
	f := newFixture(t, loop.Config{}, []tools.Tool{tool("read", true, &readsWhileClosed), tool("write", false, &writesWhileClosed)},
		fake.ToolCalls(fake.Call{ID: "a", Name: "read", Arguments: `{}`}, fake.Call{ID: "b", Name: "missing", Arguments: `{}`}),
		fake.ToolCalls(fake.Call{ID: "c", Name: "read", Arguments: `{}`}),
		fake.ToolCalls(fake.Call{ID: "d", Name: "read", Arguments: `{}`}, fake.Call{ID: "e", Name: "write", Arguments: `{}`}),
		fake.Text("done"),
	)
	gate.requests = func() int { return len(f.provider.Requests()) }
	ctx := loop.WithToolGateFor(context.Background(), gate.wait, func(d tools.Definition) bool { return !d.ReadOnly })
	gate.await(t, runInBackground(ctx, f), 3, "the steps of reads, and of a call that does not resolve, run without it")
	if readsWhileClosed.Load() != 2 || writesWhileClosed.Load() != 0 {
		t.Errorf("while the gate was closed, %d reads ran (want 2: the third shares the write's step) and %d writes (want 0)", readsWhileClosed.Load(), writesWhileClosed.Load())
	}
}
