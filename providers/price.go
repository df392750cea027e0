package providers

import "strings"

// Price is what a model costs, in US dollars per million tokens.
// CacheRead is the price of an input token read from the prompt cache,
// CacheWrite of one written to it (OpenAI charges no writes: its
// CacheWrite is its Input price, and its servers report no writes anyway).
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// WebSearchPrice is what one server-side web search costs, in US dollars:
// Anthropic's web_search and OpenAI's web_search tool are both listed at
// $10 per 1,000 searches (their pricing pages, 2025).
const WebSearchPrice = 0.01

// Cost returns what u costs at p, in US dollars. Input tokens that were
// neither read from nor written to the cache are charged at Input; output
// tokens (reasoning included) at Output; web searches at WebSearchPrice.
func (p Price) Cost(u Usage) float64 {
	plain := max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens)
	return (float64(plain)*p.Input+float64(u.CachedInputTokens)*p.CacheRead+
		float64(u.CacheWriteTokens)*p.CacheWrite+float64(u.OutputTokens)*p.Output)/1e6 +
		float64(u.WebSearches)*WebSearchPrice
}

// priceTable holds the list prices of common models, from the vendors'
// pricing pages (anthropic.com/pricing, openai.com/api/pricing) as of
// 2025; Anthropic's cache writes are the 5-minute ones (1.25 × input).
// Longer prefixes come first where one prefix extends another.
var priceTable = [...]struct {
	prefix string
	price  Price
}{
	{"claude-opus-4-5", Price{5, 25, 0.50, 6.25}},
	{"claude-opus-4", Price{15, 75, 1.50, 18.75}},
	{"claude-3-opus", Price{15, 75, 1.50, 18.75}},
	{"claude-sonnet-4", Price{3, 15, 0.30, 3.75}},
	{"claude-3-7-sonnet", Price{3, 15, 0.30, 3.75}},
	{"claude-3-5-sonnet", Price{3, 15, 0.30, 3.75}},
	{"claude-haiku-4", Price{1, 5, 0.10, 1.25}},
	{"claude-3-5-haiku", Price{0.80, 4, 0.08, 1}},
	{"claude-3-haiku", Price{0.25, 1.25, 0.03, 0.30}},
	{"gpt-4.1-mini", Price{0.40, 1.60, 0.10, 0.40}},
	{"gpt-4.1-nano", Price{0.10, 0.40, 0.025, 0.10}},
	{"gpt-4.1", Price{2, 8, 0.50, 2}},
	{"gpt-4o-mini", Price{0.15, 0.60, 0.075, 0.15}},
	{"gpt-4o", Price{2.50, 10, 1.25, 2.50}},
	{"gpt-5-mini", Price{0.25, 2, 0.025, 0.25}},
	{"gpt-5-nano", Price{0.05, 0.40, 0.005, 0.05}},
	{"gpt-5", Price{1.25, 10, 0.125, 1.25}},
	{"codex-mini", Price{1.50, 6, 0.375, 1.50}},
	{"o4-mini", Price{1.10, 4.40, 0.275, 1.10}},
	{"o3-mini", Price{1.10, 4.40, 0.55, 1.10}},
	{"o3", Price{2, 8, 0.50, 2}},
}

// PriceOf returns the list price of model by case-insensitive prefix of its
// name (a "vendor/" prefix is ignored, and a Claude name's dots read as
// dashes, as OpenRouter writes "anthropic/claude-sonnet-4.5"). ok is false
// for a model not in the table: then no cost is shown, never a guess.
func PriceOf(model string) (p Price, ok bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "claude") {
		m = strings.ReplaceAll(m, ".", "-")
	}
	for _, e := range priceTable {
		if strings.HasPrefix(m, e.prefix) {
			return e.price, true
		}
	}
	return Price{}, false
}
