// Package budget is the spend cap of a run: a Meter counts what a
// session's requests used, its subagents' included, each model priced at
// its own price by providers.Spend (the one pricing path), and refuses
// the next request once the spend reached a cap: US dollars
// (--max-budget-usd) or, for a model without a known price, tokens
// (--max-tokens-total). It counts this process's spend only: a resumed
// session starts at 0.
package budget

import (
	"errors"
	"fmt"
	"math"
)

// Limits are a run's caps; a zero field caps nothing.
type Limits struct {
	// USD caps the cost in US dollars of the priced models' tokens.
	USD float64
	// Tokens caps the billable tokens of every model: input tokens (cache
	// reads and writes included) plus output tokens (reasoning included).
	Tokens int
}

// Set reports whether l caps anything.
func (l Limits) Set() bool { return l.USD > 0 || l.Tokens > 0 }

// Check refuses caps that are no amount to stop at: a negative, NaN or
// infinite number of US dollars (NaN would never be reached, nor +Inf),
// a negative number of tokens. usd and tokens name the caps in the error
// ("--max-budget-usd", "config PATH: max_budget_usd"). Every place a cap
// is read from checks it here.
func (l Limits) Check(usd, tokens string) error {
	switch {
	case l.USD < 0 || math.IsNaN(l.USD) || math.IsInf(l.USD, 0):
		return fmt.Errorf("%s must be a positive number of US dollars, got %g", usd, l.USD)
	case l.Tokens < 0:
		return fmt.Errorf("%s must be a positive number of tokens, got %d", tokens, l.Tokens)
	}
	return nil
}

// Spent is what a meter counted: the cost in US dollars of the priced
// models' tokens, and the billable tokens of every model.
type Spent struct {
	USD    float64
	Tokens int
}

// String reads "$0.0123, 4567 tokens" (the dollars only when a priced
// model spent them).
func (s Spent) String() string {
	if s.USD > 0 {
		return fmt.Sprintf("%s, %d tokens", USD(s.USD), s.Tokens)
	}
	return fmt.Sprintf("%d tokens", s.Tokens)
}

// USD formats an amount of US dollars with enough digits for a small cap:
// "$2.50", "$0.0010", and below a hundredth of a cent two significant
// digits ("$0.0000012"), so a tiny cap or spend never reads as nothing.
func USD(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("$%.2f", v)
	}
	prec := 4
	for p := v * 1e4; v > 0 && p < 10 && prec < 12; p *= 10 {
		prec++
	}
	return fmt.Sprintf("$%.*f", prec, v)
}

// Reached is a cap a meter reached: whose it is, the caps and what was
// spent.
type Reached struct {
	// Subagent is true for a subagent definition's own cap
	// (max_budget_usd in its front matter), false for the session's.
	Subagent bool
	Limits   Limits
	Spent    Spent
	// Raise is the caps a raise would set: what was spent plus the
	// original caps again (the same amount once more).
	Raise Limits
}

// ErrReached is what every Reached's error matches with errors.Is.
var ErrReached = errors.New("spend cap reached")

// Error says which cap was reached (the one in dollars when both were)
// and what was spent: "the session's spend cap of $0.0010 was reached
// ($0.0023, 1234 tokens spent)".
func (r Reached) Error() string {
	whose := "the session's"
	if r.Subagent {
		whose = "the subagent's"
	}
	caps := fmt.Sprintf("token cap of %d tokens", r.Limits.Tokens)
	if r.Limits.USD > 0 && r.Spent.USD >= r.Limits.USD {
		caps = "spend cap of " + USD(r.Limits.USD)
	}
	return fmt.Sprintf("%s %s was reached (%s spent)", whose, caps, r.Spent)
}

// Is makes errors.Is(r, ErrReached) true.
func (r Reached) Is(target error) bool { return target == ErrReached }
