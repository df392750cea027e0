package budget

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/providers"
)

// Ask is asked when the session's cap is reached, with what was reached:
// true raises the caps to r.Raise and lets the run go on, false stops it.
// It may block (the interface asks the person) and must return when ctx
// is cancelled (then its answer is not read).
type Ask func(ctx context.Context, r Reached) bool

// Meter counts a run's spend against its caps. It is safe for concurrent
// use: a session's loop and its subagents' loops share it.
type Meter struct {
	price  providers.Pricer
	ask    Ask
	parent *Meter
	sub    bool

	mu     sync.Mutex
	spend  *providers.Spend
	limits Limits
	first  Limits // the caps as given: a raise adds them again

	asking chan struct{} // one question at a time: holds a token while one is open
}

// New returns a meter of the caps l, pricing each model with price (nil
// prices nothing); ask, when not nil, is asked before the run stops at a
// cap (nil stops it).
func New(price providers.Pricer, l Limits, ask Ask) *Meter {
	return &Meter{price: price, ask: ask, spend: providers.NewSpend(price), limits: l, first: l, asking: make(chan struct{}, 1)}
}

// Child returns a meter of a subagent's own caps l (its definition's):
// what it counts, m counts too, and it allows a request only when both
// caps do. Its own cap is never raised; m's is asked about as m's own.
func (m *Meter) Child(l Limits) *Meter {
	c := New(m.price, l, nil)
	c.parent, c.sub = m, true
	return c
}

// Add counts u, used by model; empty usage is ignored.
func (m *Meter) Add(model string, u providers.Usage) {
	m.mu.Lock()
	m.spend.Add(model, u)
	m.mu.Unlock()
	if m.parent != nil {
		m.parent.Add(model, u)
	}
}

// Spent is what the meter counted so far.
func (m *Meter) Spent() Spent {
	m.mu.Lock()
	defer m.mu.Unlock()
	usd, _ := m.spend.Cost()
	u := m.spend.Usage()
	return Spent{USD: usd, Tokens: u.InputTokens + u.OutputTokens}
}

// Limits are the caps in force (raised ones included).
func (m *Meter) Limits() Limits {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.limits
}

// reached returns the cap the spend reached, if any.
func (m *Meter) reached() (Reached, bool) {
	s := m.Spent()
	l := m.Limits()
	if !(l.USD > 0 && s.USD >= l.USD) && !(l.Tokens > 0 && s.Tokens >= l.Tokens) {
		return Reached{}, false
	}
	r := Reached{Subagent: m.sub, Limits: l, Spent: s}
	if m.first.USD > 0 {
		r.Raise.USD = s.USD + m.first.USD
	}
	if m.first.Tokens > 0 {
		r.Raise.Tokens = s.Tokens + m.first.Tokens
	}
	return r, true
}

// Allow reports whether the next request may be sent: nil when no cap is
// reached, or when the person raised it (Ask); else a Reached, or ctx's
// error once ctx is cancelled while asking. A child's own cap is checked
// before its parent's. session names the conversation asking (unused
// today: the caps are the process's).
func (m *Meter) Allow(ctx context.Context, session string) error {
	if r, ok := m.reached(); ok {
		if m.ask == nil {
			return r
		}
		if err := m.raise(ctx); err != nil {
			return err
		}
	}
	if m.parent != nil {
		return m.parent.Allow(ctx, session)
	}
	return nil
}

// raise asks whether to raise the reached cap, one question at a time: a
// question that waited for another's answer looks again first. It returns
// ctx's error, unasked, once ctx is cancelled while it waits.
func (m *Meter) raise(ctx context.Context) error {
	select {
	case m.asking <- struct{}{}:
		defer func() { <-m.asking }()
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err // both were ready: a cancelled request is not asked about
	}
	r, ok := m.reached()
	if !ok {
		return nil // raised while this one waited
	}
	yes := m.ask(ctx, r)
	if err := ctx.Err(); err != nil {
		return err
	}
	if !yes {
		return r
	}
	m.mu.Lock()
	m.limits = r.Raise
	m.mu.Unlock()
	return nil
}
