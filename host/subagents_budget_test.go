package host_test

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
)

// A session's dollar cap covers its subagents' models too: a definition
// whose model has no known price, without a token cap, is refused when
// the task starts it (its spend could not be counted), and the task's
// result says why. A token cap stands in for the price.
func TestASessionsDollarCapRefusesASubagentOnAnUnpricedModel(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		refused      bool
	}{
		{"dollar cap alone", "max_budget_usd = 1.0" + pricedProfile, true},
		{"with a token cap", "max_budget_usd = 1.0\nmax_tokens_total = 2500" + pricedProfile, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := delegating("pricey")
			f := newFixture(t, model, tc.config)
			write(t, f.path(".agent/agents/pricey.md"), "---\nname: pricey\ndescription: Lists.\ntools: list_files\nmodel: unpriced-model\n---\nYou list.\n")
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})

			r := runTurn(t, s, "Delegate the listing.")
			res := r.result(t, "task-1")
			children := 0
			for _, req := range model.Requests() {
				if req.Model == "unpriced-model" {
					children++
				}
			}
			if !tc.refused {
				if children == 0 || !strings.Contains(res.Content, "token cap of 2500 tokens was reached") {
					t.Errorf("%d requests of the child; the task's result (error %v): %q", children, res.IsError, res.Content)
				}
				return
			}
			if r.done.Reason != loop.StopAnswered || r.done.Answer != "The parent goes on." {
				t.Errorf("the turn ended %s (%v): %q", r.done.Reason, r.done.Err, r.done.Answer)
			}
			if !res.IsError || !strings.Contains(res.Content, "needs the price of model unpriced-model") ||
				!strings.Contains(res.Content, "the session's spend cap") {
				t.Errorf("the task's result (error %v): %q", res.IsError, res.Content)
			}
			if children != 0 {
				t.Errorf("the child sent %d requests, want none", children)
			}
		})
	}
}
