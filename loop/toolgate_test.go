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

// A turn's tool gate (the prompt's checkpoint) is waited for once, after
// the first request went out and before any tool call runs: the request is
// not held back by it, and no tool touches a file before it opens.
func TestToolGateHoldsToolsNotTheRequest(t *testing.T) {
	var open atomic.Bool
	var ranClosed atomic.Bool
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		if !open.Load() {
			ranClosed.Store(true)
		}
		return tools.Result{Content: "written"}, nil
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{write},
		fake.ToolCalls(fake.Call{ID: "a", Name: "write", Arguments: `{}`}),
		fake.ToolCalls(fake.Call{ID: "b", Name: "write", Arguments: `{}`}),
		fake.Text("done"),
	)
	release := make(chan struct{})
	waited := make(chan int, 4) // the requests made when the gate was reached
	ctx := loop.WithToolGate(context.Background(), func(ctx context.Context) {
		waited <- len(f.provider.Requests())
		select {
		case <-release:
			open.Store(true)
		case <-ctx.Done():
		}
	})
	finished := runInBackground(ctx, f)
	var done loop.Done
	select {
	case n := <-waited:
		if n != 1 {
			t.Errorf("the gate was reached after %d requests, want 1 (the first request must not wait for it)", n)
		}
		close(release)
		done = <-finished
	case done = <-finished:
		t.Error("the turn ended without waiting for its gate")
	}
	if done.Err != nil || done.Answer != "done" {
		t.Fatalf("done %+v", done)
	}
	if ranClosed.Load() {
		t.Error("a tool call ran before the gate opened")
	}
	if len(waited) != 0 {
		t.Errorf("the gate was waited for %d more times; once a turn is enough", len(waited))
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
	var open atomic.Bool
	var readsWhileClosed, writesWhileClosed atomic.Int32
	tool := func(name string, readOnly bool, count *atomic.Int32) funcTool {
		return funcTool{name, readOnly, func(context.Context, json.RawMessage) (tools.Result, error) {
			if !open.Load() {
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
	release := make(chan struct{})
	waited := make(chan int, 4) // the requests made when the gate was reached
	ctx := loop.WithToolGateFor(context.Background(), func(ctx context.Context) {
		waited <- len(f.provider.Requests())
		select {
		case <-release:
			open.Store(true)
		case <-ctx.Done():
		}
	}, func(d tools.Definition) bool { return !d.ReadOnly })
	finished := runInBackground(ctx, f)
	var done loop.Done
	select {
	case n := <-waited:
		if n != 3 {
			t.Errorf("the gate was reached after %d requests, want 3 (the steps of reads, and of a call that does not resolve, run without it)", n)
		}
		close(release)
		done = <-finished
	case done = <-finished:
		t.Error("the turn ended without waiting for its gate")
	}
	if done.Err != nil || done.Answer != "done" {
		t.Fatalf("done %+v", done)
	}
	if readsWhileClosed.Load() != 2 || writesWhileClosed.Load() != 0 {
		t.Errorf("while the gate was closed, %d reads ran (want 2: the third shares the write's step) and %d writes (want 0)", readsWhileClosed.Load(), writesWhileClosed.Load())
	}
	if len(waited) != 0 {
		t.Errorf("the gate was waited for %d more times; once a turn is enough", len(waited))
	}
}
