package sdkstream

import (
	"context"
	"math"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// delegating is a Turn whose task call's subagent runs on "small" and
// uses 1,000 input and 100 output tokens; the turn itself 2,000 and 200.
func delegating(_ context.Context, _ turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	ch <- loop.StepStarted{Step: 1}
	ch <- loop.ToolCallStarted{ID: "t1", Name: "task", Arguments: `{"prompt":"look"}`}
	ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Start: true, Model: "small"}}
	ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: loop.TextDelta{Text: "found"}}}
	ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1",
		Event: loop.Done{Reason: loop.StopAnswered, Usage: providers.Usage{InputTokens: 1000, OutputTokens: 100}}}}
	ch <- loop.ToolCallFinished{ID: "t1", Name: "task", Content: "found"}
	ch <- loop.Done{Answer: "done", Reason: loop.StopAnswered, Steps: 2,
		Usage: providers.Usage{InputTokens: 2000, OutputTokens: 200, CachedInputTokens: 500}}
	close(ch)
	return ch
}

// priceList is a Config.Price that knows prices' models.
func priceList(prices map[string]providers.Price) func(model string) (providers.Price, bool) {
	return func(model string) (providers.Price, bool) {
		p, ok := prices[model]
		return p, ok
	}
}

func TestTheResultCountsTheSubagentsSpendAndTheRunsSoFar(t *testing.T) {
	prices := map[string]providers.Price{"m": {Input: 3, Output: 15, CacheRead: 0.3}, "small": {Input: 1, Output: 5}}
	h := newHost(t, Config{Turn: delegating, Price: priceList(prices)})
	main := (1500*3 + 500*0.3 + 200*15) / 1e6
	child := (1000*1 + 100*5) / 1e6
	for i, want := range []float64{main + child, 2 * (main + child)} {
		h.send(user("go"))
		msgs := h.until("result")
		res := msgs[len(msgs)-1]
		if got := res["total_cost_usd"].(float64); math.Abs(got-want) > 1e-12 {
			t.Errorf("turn %d: total_cost_usd %v, want %v (the session's and its subagent's, every turn so far)", i+1, got, want)
		}
		if u := res["usage"].(map[string]any); u["input_tokens"] != 1500.0 || u["cache_read_input_tokens"] != 500.0 || u["output_tokens"] != 200.0 {
			t.Errorf("turn %d: usage %v, want the turn's own", i+1, u)
		}
		mu := res["modelUsage"].(map[string]any)
		small, _ := mu["small"].(map[string]any)
		if len(mu) != 2 || small == nil || small["inputTokens"] != float64(1000*(i+1)) || math.Abs(small["costUSD"].(float64)-child*float64(i+1)) > 1e-12 {
			t.Errorf("turn %d: modelUsage %v", i+1, mu)
		}
	}
}
