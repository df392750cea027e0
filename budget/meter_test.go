package budget_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/providers"
)

// price prices model "priced" at $1 per million input tokens and $2 per
// million output tokens, and "cheap" at a tenth of that; others have no
// price.
func price(model string) (providers.Price, bool) {
	switch model {
	case "priced":
		return providers.Price{Input: 1, Output: 2}, true
	case "cheap":
		return providers.Price{Input: 0.1, Output: 0.2}, true
	}
	return providers.Price{}, false
}

func usage(in, out int) providers.Usage { return providers.Usage{InputTokens: in, OutputTokens: out} }

func TestTheMeterPricesEachModelAtItsOwnPrice(t *testing.T) {
	m := budget.New(price, budget.Limits{USD: 0.01}, nil)
	m.Add("priced", usage(1000, 1000)) // $0.003
	m.Add("cheap", usage(10000, 0))    // $0.001
	m.Add("unknown", usage(5000, 5000))
	s := m.Spent()
	if s.USD < 0.00399 || s.USD > 0.00401 || s.Tokens != 22000 {
		t.Errorf("spent %+v, want $0.004 and 22000 tokens", s)
	}
	if err := m.Allow(context.Background(), ""); err != nil {
		t.Errorf("under the cap: %v", err)
	}
	m.Add("priced", usage(0, 3000)) // $0.006: $0.010 in all
	err := m.Allow(context.Background(), "")
	var r budget.Reached
	if !errors.As(err, &r) || !errors.Is(err, budget.ErrReached) || r.Subagent {
		t.Fatalf("at the cap: %v", err)
	}
	if !strings.Contains(err.Error(), "the session's spend cap of $0.0100 was reached ($0.0100") {
		t.Errorf("error %q", err)
	}
}

func TestTheTokenCapCountsEveryModel(t *testing.T) {
	m := budget.New(price, budget.Limits{Tokens: 100}, nil)
	m.Add("unknown", usage(60, 30))
	if err := m.Allow(context.Background(), ""); err != nil {
		t.Fatalf("90 of 100 tokens: %v", err)
	}
	m.Add("priced", usage(10, 0))
	if err := m.Allow(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "token cap of 100 tokens") {
		t.Errorf("100 of 100 tokens: %v", err)
	}
}

// A child's usage counts in its parent's; the child's own cap stops only
// the child, and the parent's cap stops the child too.
func TestAChildCountsInItsParentAndHasItsOwnCap(t *testing.T) {
	session := budget.New(price, budget.Limits{USD: 0.01}, nil)
	child := session.Child(budget.Limits{USD: 0.002})
	child.Add("priced", usage(0, 1000)) // $0.002
	err := child.Allow(context.Background(), "")
	var r budget.Reached
	if !errors.As(err, &r) || !r.Subagent || !strings.Contains(err.Error(), "the subagent's spend cap of $0.0020") {
		t.Errorf("the child at its own cap: %v", err)
	}
	if s := session.Spent(); s.USD < 0.00199 || s.Tokens != 1000 {
		t.Errorf("the session counted %+v of its child's", s)
	}
	if err := session.Allow(context.Background(), ""); err != nil {
		t.Errorf("the session is under its cap: %v", err)
	}

	other := session.Child(budget.Limits{USD: 1})
	other.Add("priced", usage(0, 4000)) // $0.008: the session is at $0.010
	if err := other.Allow(context.Background(), ""); !errors.As(err, &r) || r.Subagent {
		t.Errorf("a child past the session's cap: %v", err)
	}
}

// Reaching a cap asks before stopping: yes raises it by the same amount
// again from what was spent, once for waiting requests; no stops.
func TestAReachedCapIsAskedAboutOnceAndRaised(t *testing.T) {
	var mu sync.Mutex
	var asked []budget.Reached
	yes := true
	m := budget.New(price, budget.Limits{USD: 0.001}, func(_ context.Context, r budget.Reached) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r)
		return yes
	})
	m.Add("priced", usage(0, 1000)) // $0.002
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = m.Allow(context.Background(), "") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d after a raise: %v", i, err)
		}
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	if r := asked[0]; r.Raise.USD < 0.00299 || r.Raise.USD > 0.00301 {
		t.Errorf("the raise %+v, want $0.003: what was spent and the cap again", r.Raise)
	}
	if l := m.Limits(); l.USD < 0.00299 {
		t.Errorf("limits after the raise %+v", l)
	}

	m.Add("priced", usage(0, 1000))
	yes = false
	if err := m.Allow(context.Background(), ""); !errors.Is(err, budget.ErrReached) {
		t.Errorf("refused raise: %v", err)
	}
}

// A question cancelled with its context stops with the context's error.
func TestACancelledQuestionReturnsTheContextsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := budget.New(price, budget.Limits{Tokens: 1}, func(ctx context.Context, _ budget.Reached) bool {
		cancel()
		<-ctx.Done()
		return true
	})
	m.Add("x", usage(1, 0))
	if err := m.Allow(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

// A request whose context is cancelled while another's question is open
// stops at once with its context's error: it does not wait for the
// answer, and is never asked itself.
func TestACancelledRequestDoesNotWaitForAnothersQuestion(t *testing.T) {
	asking, answer := make(chan struct{}), make(chan bool)
	var mu sync.Mutex
	questions := 0
	m := budget.New(price, budget.Limits{Tokens: 1}, func(ctx context.Context, _ budget.Reached) bool {
		mu.Lock()
		questions++
		n := questions
		mu.Unlock()
		if n > 1 {
			return false // the second request was asked: the test fails below
		}
		close(asking)
		return <-answer
	})
	m.Add("x", usage(1, 0))
	first := make(chan error, 1)
	go func() { first <- m.Allow(context.Background(), "") }()
	<-asking // the first request's question is open

	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { second <- m.Allow(ctx, "") }()
	cancel()
	select {
	case err := <-second:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled request: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // a guard: the answer below never came
		t.Error("the cancelled request still waits for the other's question")
	}
	answer <- false
	if err := <-first; !errors.Is(err, budget.ErrReached) {
		t.Errorf("the first request after a no: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if questions != 1 {
		t.Errorf("asked %d times, want once", questions)
	}
}
