package cmd

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// pricer gives the price of a model, ok false when it has none.
type pricer func(model string) (providers.Price, bool)

// sessionTokensJSON is one session's token account in `sessions stats
// --json`: input counts every input token, cached (cache reads) and
// cache_write included; cache_hit_rate is cached/input (0 without input);
// cost_usd is left out for a model without a price.
type sessionTokensJSON struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Model        string   `json:"model"`
	Input        int      `json:"input"`
	Cached       int      `json:"cached_input"`
	CacheWrite   int      `json:"cache_write"`
	Output       int      `json:"output"`
	CacheHitRate float64  `json:"cache_hit_rate"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
}

func sessionTokens(list []sessions.Summary, price pricer) []sessionTokensJSON {
	out := make([]sessionTokensJSON, len(list))
	for i, ss := range list {
		u := ss.Usage
		st := sessionTokensJSON{ID: ss.ID, Title: ss.Title, Model: ss.Model, Input: u.InputTokens,
			Cached: u.CachedInputTokens, CacheWrite: u.CacheWriteTokens, Output: u.OutputTokens}
		if u.InputTokens > 0 {
			st.CacheHitRate = float64(u.CachedInputTokens) / float64(u.InputTokens)
		}
		if p, ok := price(ss.Model); ok {
			c := p.Cost(u)
			st.CostUSD = &c
		}
		out[i] = st
	}
	return out
}

// writeSessionTokens prints the per-session token table.
func writeSessionTokens(w io.Writer, list []sessionTokensJSON) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tMODEL\tINPUT\tCACHED\tCACHE WRITE\tHIT RATE\tOUTPUT\tCOST")
	for _, s := range list {
		cost := "-"
		if s.CostUSD != nil {
			cost = formatCost(*s.CostUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.1f%%\t%d\t%s\n", s.ID, s.Model, s.Input, s.Cached, s.CacheWrite, 100*s.CacheHitRate, s.Output, cost)
	}
	tw.Flush()
}

// formatCost shows dollars with four decimals below a dollar, two above.
func formatCost(usd float64) string {
	if usd < 1 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
