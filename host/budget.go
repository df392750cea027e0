package host

import (
	"cmp"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/subagent"
)

// resolveLimits resolves the spend caps: --max-budget-usd and
// --max-tokens-total, else the profile's max_budget_usd and
// max_tokens_total, else the config file's. A cap in US dollars on a
// model without a known price and no token cap is a usage error: its
// spend could not be counted, and so is a cap that is no number of
// dollars or tokens (negative, NaN, infinite: budget.Limits.Check).
func (s *Settings) resolveLimits(fc fileConfig, o *Flags, where string) error {
	p := fc.Profiles[s.Profile]
	if v := cmp.Or(p.MaxBudgetUSD, fc.MaxBudgetUSD); v != nil {
		s.Limits.USD = *v
	}
	if v := cmp.Or(p.MaxTokensTotal, fc.MaxTokensTotal); v != nil {
		s.Limits.Tokens = *v
	}
	if err := s.Limits.Check(where+": max_budget_usd", where+": max_tokens_total"); err != nil {
		return UsageError{Err: err}
	}
	flags := budget.Limits{USD: o.MaxBudgetUSD, Tokens: o.MaxTokensTotal}
	if err := flags.Check("--max-budget-usd", "--max-tokens-total"); err != nil {
		return UsageError{Err: err}
	}
	if o.MaxBudgetUSD > 0 {
		s.Limits.USD = o.MaxBudgetUSD
	}
	if o.MaxTokensTotal > 0 {
		s.Limits.Tokens = o.MaxTokensTotal
	}
	if s.Model == "" {
		return nil // Ready says so
	}
	return checkPriced(s.Limits, s.Model, s.Pricer())
}

// checkPriced refuses a cap in US dollars on a model without a known
// price when no token cap stands in for it.
func checkPriced(l budget.Limits, model string, price providers.Pricer) error {
	if l.USD <= 0 || l.Tokens > 0 {
		return nil
	}
	if _, ok := price(model); ok {
		return nil
	}
	return usagef("a spend cap of %s needs the price of model %s, which is not known: set it in the profile "+
		"([profiles.NAME.price] input and output, US dollars per million tokens), or cap its tokens instead "+
		"(--max-tokens-total N, max_tokens_total)", budget.USD(l.USD), model)
}

// newMeter makes the session's meter of the settings' caps, which asks
// the front-end's question before it stops; none when nothing is capped.
func (a *agent) newMeter(fe FrontEnd) {
	if !a.settings.Limits.Set() {
		return
	}
	a.meter = budget.New(a.settings.Pricer(), a.settings.Limits, fe.Budget)
}

// loopBudget is the loop's Budget of meter m: nil when there is none (a
// nil *budget.Meter must not become a non-nil interface).
func loopBudget(m *budget.Meter) loop.Budget {
	if m == nil {
		return nil
	}
	return m
}

// childMeter is the meter of a child running as ag: the session's, or,
// when the definition caps its own spend (max_budget_usd), one of its own
// that counts into the session's too.
func (a *agent) childMeter(ag *subagent.Agent) *budget.Meter {
	if ag == nil || ag.MaxBudgetUSD <= 0 {
		return a.meter
	}
	own := budget.Limits{USD: ag.MaxBudgetUSD}
	if a.meter == nil {
		// No session cap: a parent that counts and never stops.
		return budget.New(a.settings.Pricer(), budget.Limits{}, nil).Child(own)
	}
	return a.meter.Child(own)
}
