package loop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// tokenCap is a Budget that refuses a request once cap tokens (input and
// output) were counted, and records what it was told.
type tokenCap struct {
	mu     sync.Mutex
	cap    int
	used   int
	models []string
	asked  int
}

func (b *tokenCap) Add(model string, u providers.Usage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += u.InputTokens + u.OutputTokens
	b.models = append(b.models, model)
}

func (b *tokenCap) Allow(context.Context, string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked++
	if b.used >= b.cap {
		return fmt.Errorf("the cap of %d tokens was reached (%d spent)", b.cap, b.used)
	}
	return nil
}

// A turn stops before the request that would start past the cap: the
// request that crossed it is the last sent, and the answer keeps what the
// model wrote, then says why.
func TestATurnStopsAtItsBudgetBeforeTheNextRequest(t *testing.T) {
	step := func(id, text string) fake.Reply {
		r := fake.ToolCalls(fake.Call{ID: id, Name: "look", Arguments: `{}`})
		r.Text = text
		r.Usage = providers.Usage{InputTokens: 60, OutputTokens: 10}
		return r
	}
	b := &tokenCap{cap: 100}
	f := newFixture(t, loop.Config{Budget: b}, []tools.Tool{bulky(10)},
		step("c1", "Looking at a."), step("c2", "Now b."), fake.Text("All three seen."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look three times")))
	if done.Reason != loop.StopBudget {
		t.Fatalf("done %+v, want max_budget", done)
	}
	if got := len(f.provider.Requests()); got != 2 || done.Steps != 2 {
		t.Errorf("%d requests sent, %d steps; want 2: the one that crossed the cap is the last", got, done.Steps)
	}
	if !strings.HasPrefix(done.Answer, "Looking at a.\n\nNow b.\n\nStopped: the cap of 100 tokens was reached") {
		t.Errorf("answer %q", done.Answer)
	}
	if done.Err == nil || !strings.Contains(done.Err.Error(), "140 spent") {
		t.Errorf("err %v", done.Err)
	}
	if strings.Join(b.models, ",") != "m,m" {
		t.Errorf("usage counted for %v", b.models)
	}
}

// A compaction's summary request is checked too: a turn whose budget
// runs out just before an automatic compaction never asks for the summary.
func TestTheBudgetIsCheckedBeforeACompactionRequest(t *testing.T) {
	cfg := loop.Config{Window: 2000, AutoCompact: 0.8, MaxSteps: 40}
	// A first run without a cap finds how many requests come before the
	// first summary request.
	dry := measuredFixture(t, cfg, []tools.Tool{bulky(1500)}, model(12))
	collect(dry.loop.Run(context.Background(), dry.conv, providers.UserText("look a dozen times")))
	before := -1
	for i, r := range dry.provider.Requests() {
		if r.ToolChoice == providers.ToolChoiceNone {
			before = i
			break
		}
	}
	if before < 1 {
		t.Fatalf("the dry run never compacted after a step (first summary request at %d)", before)
	}

	cfg.Budget = &allowN{n: before}
	f := measuredFixture(t, cfg, []tools.Tool{bulky(1500)}, model(12))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look a dozen times")))
	if done.Reason != loop.StopBudget {
		t.Fatalf("done %+v", done)
	}
	if n := len(f.provider.Requests()); n != before {
		t.Errorf("%d requests, want %d", n, before)
	}
	for _, r := range f.provider.Requests() {
		if r.ToolChoice == providers.ToolChoiceNone {
			t.Errorf("a summary request was sent past the budget")
		}
	}
	for _, ev := range evs {
		if _, ok := ev.(loop.Compacting); ok {
			t.Errorf("a compaction started past the budget")
		}
	}

	// /compact asks the budget as well.
	_, done = collect(f.loop.Compact(context.Background(), f.conv, ""))
	if done.Reason != loop.StopBudget || len(f.provider.Requests()) != before {
		t.Errorf("/compact past the budget: done %+v, %d requests", done, len(f.provider.Requests()))
	}
}

// allowN is a Budget that allows n requests, then none.
type allowN struct {
	mu sync.Mutex
	n  int
}

func (a *allowN) Add(string, providers.Usage) {}
func (a *allowN) Allow(context.Context, string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		return errors.New("no more requests")
	}
	a.n--
	return nil
}

// A Budget that waits (a person asked) and is cancelled ends the turn as
// cancelled, not at its budget.
func TestABudgetQuestionCancelledEndsTheTurnCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFixture(t, loop.Config{Budget: waitingBudget{cancel}}, nil, fake.Text("never sent"))
	_, done := collect(f.loop.Run(ctx, f.conv, providers.UserText("hi")))
	if done.Reason != loop.StopCancelled || len(f.provider.Requests()) != 0 {
		t.Errorf("done %+v, %d requests", done, len(f.provider.Requests()))
	}
}

// waitingBudget cancels the turn while it "asks", then waits for the
// cancellation as a question does.
type waitingBudget struct{ cancel context.CancelFunc }

func (waitingBudget) Add(string, providers.Usage) {}
func (w waitingBudget) Allow(ctx context.Context, _ string) error {
	w.cancel()
	<-ctx.Done()
	return errors.New("not answered")
}
