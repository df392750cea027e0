package providers

import (
	"math"
	"testing"
)

func TestPriceOf(t *testing.T) {
	tests := []struct {
		model string
		input float64
		ok    bool
	}{
		{"claude-sonnet-4-5-20250929", 3, true},
		{"anthropic/claude-sonnet-4.5", 3, true},
		{"claude-opus-4-5", 5, true},
		{"claude-opus-4-1-20250805", 15, true},
		{"claude-3-5-haiku-latest", 0.80, true},
		{"claude-haiku-4-5", 1, true},
		{"gpt-4.1-mini", 0.40, true},
		{"openai/gpt-4.1", 2, true},
		{"gpt-4o-mini-2024-07-18", 0.15, true},
		{"GPT-5", 1.25, true},
		{"codex-mini-latest", 1.50, true},
		{"qwen2.5-coder:7b", 0, false},
		{"scripted-model", 0, false},
	}
	for _, tt := range tests {
		p, ok := PriceOf(tt.model)
		if ok != tt.ok || p.Input != tt.input {
			t.Errorf("PriceOf(%q) = %+v, %v", tt.model, p, ok)
		}
	}
}

func TestCost(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	// 1M input of which 600k read and 100k written, 10k output.
	u := Usage{InputTokens: 1_000_000, CachedInputTokens: 600_000, CacheWriteTokens: 100_000, OutputTokens: 10_000}
	want := 0.3*3 + 0.6*0.30 + 0.1*3.75 + 0.01*15
	if got := p.Cost(u); math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}

func TestCostOfWebSearches(t *testing.T) {
	p := Price{Input: 3, Output: 15}
	u := Usage{InputTokens: 1_000_000, WebSearches: 3}
	if got, want := p.Cost(u), 3+3*WebSearchPrice; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v: three searches at $0.01", got, want)
	}
	if got := u.Add(Usage{WebSearches: 2}).WebSearches; got != 5 {
		t.Errorf("searches added to %d, want 5", got)
	}
}
