package host_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
)

// pricedProfile prices model m at $1 per million tokens, in and out: a
// request of 1000 input tokens costs $0.001.
const pricedProfile = "\n[profiles.p]\nmodel = \"m\"\n[profiles.p.price]\ninput = 1.0\noutput = 1.0\n"

// delegating is a model whose session calls the task tool once (as agent
// ag, "" for the default) and then answers, and whose children list files
// until they are stopped; every request reports 1000 input tokens.
func delegating(ag string) *fake.Provider {
	return fake.NewFunc(func(req providers.Request) fake.Reply {
		child := strings.Contains(req.System, "You are a subagent")
		results := len(toolResults(req))
		var r fake.Reply
		switch {
		case child:
			r = fake.ToolCalls(call("ls-"+string(rune('a'+results)), "list_files", `{}`))
			r.Text = "Still listing."
		case results == 0:
			args := `{"description":"list forever","prompt":"List the files again and again."`
			if ag != "" {
				args += `,"agent":"` + ag + `"`
			}
			r = fake.ToolCalls(call("task-1", "task", args+"}"))
		default:
			r = fake.Text("The parent goes on.")
		}
		r.Usage = providers.Usage{InputTokens: 1000}
		return r
	})
}

// A subagent's requests count toward the session's cap: the child that
// crosses it stops, its task call's result says so, and the parent stops
// before its next request; the session's record says why. The profile's
// max_budget_usd wins over the top level's.
func TestTheSessionsCapCountsItsSubagents(t *testing.T) {
	model := delegating("")
	f := newFixture(t, model, "max_budget_usd = 5.0"+strings.Replace(pricedProfile, "model = \"m\"\n", "model = \"m\"\nmax_budget_usd = 0.0025\n", 1))
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})

	r := runTurn(t, s, "Delegate the listing.")
	if r.done.Reason != loop.StopBudget {
		t.Fatalf("the turn ended %s (%v), want max_budget", r.done.Reason, r.done.Err)
	}
	res := r.result(t, "task-1")
	if !res.IsError || !strings.Contains(res.Content, "the session's spend cap of $0.0025 was reached") {
		t.Errorf("the task's result (error %v): %q", res.IsError, res.Content)
	}
	// The parent's first request, then the child's two: $0.003 in all.
	if n := len(model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3: the one that crossed the cap is the last", n)
	}
	if !strings.Contains(r.done.Answer, "Stopped: the session's spend cap of $0.0025 was reached ($0.0030") {
		t.Errorf("answer %q", r.done.Answer)
	}
	rec, err := s.Store().Get(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != sessions.StatusBudget {
		t.Errorf("the session's status %q, want %q", rec.Status, sessions.StatusBudget)
	}
}

// A definition's max_budget_usd stops its child alone: the task's result
// is an error saying so, and the parent goes on to its answer.
func TestASubagentsOwnCapStopsItWhileTheParentGoesOn(t *testing.T) {
	model := delegating("lister")
	f := newFixture(t, model, pricedProfile)
	write(t, f.path(".agent/agents/lister.md"), "---\nname: lister\ndescription: Lists.\ntools: list_files\nmax_budget_usd: 0.0015\n---\nYou list.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})

	r := runTurn(t, s, "Delegate the listing.")
	if r.done.Reason != loop.StopAnswered || r.done.Answer != "The parent goes on." {
		t.Fatalf("the turn ended %s (%v): %q", r.done.Reason, r.done.Err, r.done.Answer)
	}
	res := r.result(t, "task-1")
	if !res.IsError || !strings.Contains(res.Content, "the subagent's spend cap of $0.0015 was reached ($0.0020") {
		t.Errorf("the task's result (error %v): %q", res.IsError, res.Content)
	}
	children, err := s.Store().Children(context.Background(), s.ID())
	if err != nil || len(children) != 1 || children[0].Status != sessions.StatusBudget {
		t.Errorf("the child's record %+v (%v), want one stopped at its budget", children, err)
	}
}

// A model without a price is capped by tokens: billable input and output.
func TestATokenCapStopsAnUnpricedModel(t *testing.T) {
	model := delegating("")
	f := newFixture(t, model, "max_budget_usd = 1.0\nmax_tokens_total = 1500\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	r := runTurn(t, s, "Delegate the listing.")
	if r.done.Reason != loop.StopBudget || !strings.Contains(r.done.Answer, "token cap of 1500 tokens was reached (2000 tokens spent)") {
		t.Errorf("the turn ended %s: %q", r.done.Reason, r.done.Answer)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// A cap in dollars on a model without a price and no token cap is a
// usage error that says what to set.
func TestABudgetOnAnUnpricedModelWithoutATokenCapIsAUsageError(t *testing.T) {
	f := newFixture(t, fake.New(), "max_budget_usd = 1.0\n")
	_, err := f.h.OpenSession(t.Context(), host.Request{Dir: f.dir}, host.FrontEnd{})
	var ue host.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "needs the price of model m") || !strings.Contains(err.Error(), "--max-tokens-total") {
		t.Errorf("err %v, want a usage error naming the price and the token cap", err)
	}
}

// The interface's question raises the cap and the turn goes on without a
// new prompt.
func TestARaisedCapLetsTheTurnGoOn(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		var r fake.Reply
		if n := len(toolResults(req)); n < 3 {
			r = fake.ToolCalls(call("ls-"+string(rune('a'+n)), "list_files", `{}`))
		} else {
			r = fake.Text("Listed three times.")
		}
		r.Usage = providers.Usage{InputTokens: 1000}
		return r
	})
	f := newFixture(t, model, "max_budget_usd = 0.001"+pricedProfile)
	asked := 0
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Budget: func(context.Context, budget.Reached) bool {
		asked++
		return true
	}})
	r := runTurn(t, s, "List three times.")
	if r.done.Reason != loop.StopAnswered || asked != 3 {
		t.Errorf("the turn ended %s (%v) after %d questions, want an answer after 3", r.done.Reason, r.done.Err, asked)
	}
}

// NaN and infinities are no cap: in the config file (TOML's nan and inf),
// a profile or the flags, they are a usage error naming the cap, never a
// run without one.
func TestACapThatIsNoNumberIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		flags        host.Flags
		want         string
	}{
		{"nan in the config", "max_budget_usd = nan\n", host.Flags{}, "max_budget_usd must be a positive number of US dollars, got NaN"},
		{"inf in a profile", strings.Replace(pricedProfile, "model = \"m\"\n", "model = \"m\"\nmax_budget_usd = inf\n", 1), host.Flags{},
			"max_budget_usd must be a positive number of US dollars, got +Inf"},
		{"NaN flag", pricedProfile, host.Flags{MaxBudgetUSD: math.NaN()}, "--max-budget-usd must be a positive number of US dollars, got NaN"},
		{"Inf flag", pricedProfile, host.Flags{MaxBudgetUSD: math.Inf(1)}, "--max-budget-usd must be a positive number of US dollars, got +Inf"},
		{"negative token flag", pricedProfile, host.Flags{MaxTokensTotal: -1}, "--max-tokens-total must be a positive number of tokens, got -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			config := filepath.Join(tmp, "config.toml")
			write(t, config, tc.config)
			flags := tc.flags
			flags.Model, flags.BaseURL, flags.ConfigPath, flags.DB = "m", "http://127.0.0.1:1/v1", config, filepath.Join(tmp, "agent.db")
			h, err := host.Open(t.Context(), host.Config{Flags: flags, Getenv: func(string) string { return "" }, Provider: fake.New()})
			if err == nil {
				defer h.Close()
				_, err = h.OpenSession(t.Context(), host.Request{Dir: tmp}, host.FrontEnd{})
			}
			var ue host.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want a usage error saying %q", err, tc.want)
			}
		})
	}
}
