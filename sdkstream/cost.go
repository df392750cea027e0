package sdkstream

import (
	"github.com/agent-dev/agent/providers"
)

// spend adds u, used by model, to the run's totals, priced at that
// model's price (a subagent's at its own). It is called from the
// goroutine that runs the turns.
func (s *Server) spend(model string, u providers.Usage) { s.totals.Add(model, u) }

// totalCost is the run's cost so far in US dollars, every model's.
func (s *Server) totalCost() float64 {
	c, _ := s.totals.Cost()
	return c
}

// modelUsage is the run's totals per model in the SDK's ModelUsage shape.
func (s *Server) modelUsage() map[string]any {
	out := map[string]any{}
	for model, t := range s.totals.Models() {
		u := t.Usage
		out[model] = map[string]any{"inputTokens": plainInput(u), "outputTokens": u.OutputTokens,
			"cacheReadInputTokens": u.CachedInputTokens, "cacheCreationInputTokens": u.CacheWriteTokens,
			"webSearchRequests": u.WebSearches, "costUSD": t.Cost, "contextWindow": 0, "maxOutputTokens": 0}
	}
	return out
}

// plainInput is the input tokens neither read from nor written to the
// cache: the Anthropic API's input_tokens (agent's InputTokens counts
// them all).
func plainInput(u providers.Usage) int {
	return max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens)
}

// mainModel is the model the session's turns run on.
func (s *Server) mainModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}
