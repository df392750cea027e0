package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

func sonnetOnly(model string) (providers.Price, bool) {
	if model == "claude-sonnet-4-5" {
		return providers.Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}, true
	}
	return providers.Price{}, false
}

func TestCostMeter(t *testing.T) {
	c := costMeter{price: sonnetOnly}
	c.reset("claude-sonnet-4-5", providers.Usage{InputTokens: 100_000, OutputTokens: 1_000}) // $0.315
	if got := c.label(); got != "$0.3150" {
		t.Errorf("prior label = %q", got)
	}
	c.startTurn()
	c.add("claude-sonnet-4-5", providers.Usage{InputTokens: 100_000, CachedInputTokens: 90_000, CacheWriteTokens: 5_000, OutputTokens: 1_000})
	// 5k plain $0.015 + 90k read $0.027 + 5k written $0.01875 + 1k out $0.015 = $0.07575
	if got := c.label(); got != "$0.3907" {
		t.Errorf("label = %q", got)
	}
	r := c.report()
	for _, want := range []string{"200k input tokens", "90k read from the cache, 45%", "5k written", "$0.3907", "last turn $0.0757"} {
		if !strings.Contains(r, want) {
			t.Errorf("report %q lacks %q", r, want)
		}
	}
	c.add("mystery-model", providers.Usage{InputTokens: 10, OutputTokens: 1})
	if c.label() != "" || !strings.Contains(c.report(), "Cost unknown") {
		t.Errorf("after an unpriced step: label %q, report %q", c.label(), c.report())
	}
	var none costMeter
	none.reset("claude-sonnet-4-5", providers.Usage{})
	none.add("claude-sonnet-4-5", providers.Usage{InputTokens: 10})
	if none.label() != "" {
		t.Errorf("no pricer: label %q", none.label())
	}
}

func TestStatusShowsCost(t *testing.T) {
	s := newStatus(newStyles(true), "claude-sonnet-4-5", "/tmp/x", "s", 0)
	s.addUsage(1200, 34)
	s.cost = "$0.0042"
	if got := s.Render(120); !strings.Contains(got, "$0.0042") {
		t.Errorf("status %q lacks the cost", got)
	}
}

func TestCostInTheStatusLineAndTheCostCommand(t *testing.T) {
	srv := fake.New(fake.Text("Priced answer.").WithUsage(1_000_000, 10_000))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Price = func(string) (providers.Price, bool) { return providers.Price{Input: 3, Output: 15}, true }
	d := newDriver(t, cfg)
	d.typeAndSend("how much?")
	d.untilShows("Priced answer.")
	d.untilShows("$3.15")
	d.until("idle", func(string) bool { return !d.m.running })
	d.typeAndSend("/cost")
	d.untilShows("Cost $3.15, of which the last turn $3.15.")
}
