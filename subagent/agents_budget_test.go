package subagent

import (
	"strings"
	"testing"
)

// max_budget_usd caps one run of the agent, in US dollars; a value that
// is no positive number (NaN and infinities included) makes the
// definition fail, saying why.
func TestMaxBudgetUSDIsReadFromTheFrontMatter(t *testing.T) {
	a, err := Parse("---\nname: lister\ndescription: Lists.\nmax_budget_usd: \"0.25\"\n---\nYou list.\n")
	if err != nil || a.MaxBudgetUSD != 0.25 {
		t.Fatalf("parsed %+v, %v", a, err)
	}
	for _, bad := range []string{"-1", "lots", "NaN", "nan", "Inf", "+Inf", "-Inf", "infinity"} {
		_, err := Parse("---\nname: lister\ndescription: Lists.\nmax_budget_usd: " + bad + "\n---\n")
		if err == nil || !strings.Contains(err.Error(), "max_budget_usd") {
			t.Errorf("max_budget_usd %s: %v", bad, err)
		}
	}
}
