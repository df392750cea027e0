package budget_test

import (
	"math"
	"strings"
	"testing"

	"github.com/agent-dev/agent/budget"
)

// Caps that cap nothing a person meant are refused, naming the cap: a
// negative number, and NaN and infinities, which compare false with every
// spend (NaN) or are never reached (+Inf).
func TestLimitsRefuseCapsThatAreNoNumberOfDollarsOrTokens(t *testing.T) {
	for _, tc := range []struct {
		l    budget.Limits
		want string
	}{
		{budget.Limits{USD: -1}, "max_budget_usd must be a positive number of US dollars, got -1"},
		{budget.Limits{USD: math.NaN()}, "max_budget_usd must be a positive number of US dollars, got NaN"},
		{budget.Limits{USD: math.Inf(1)}, "max_budget_usd must be a positive number of US dollars, got +Inf"},
		{budget.Limits{USD: math.Inf(-1)}, "max_budget_usd must be a positive number of US dollars, got -Inf"},
		{budget.Limits{Tokens: -5}, "max_tokens_total must be a positive number of tokens, got -5"},
	} {
		err := tc.l.Check("max_budget_usd", "max_tokens_total")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.want)
		}
	}
	for _, l := range []budget.Limits{{}, {USD: 1, Tokens: 10}, {USD: 0.0001}} {
		if err := l.Check("x", "y"); err != nil {
			t.Errorf("%+v: %v", l, err)
		}
	}
	if err := (budget.Limits{USD: math.NaN()}).Check("--max-budget-usd", "--max-tokens-total"); err == nil || !strings.HasPrefix(err.Error(), "--max-budget-usd ") {
		t.Errorf("the error %v does not start with the name given", err)
	}
}
