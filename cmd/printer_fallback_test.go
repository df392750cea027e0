package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// A subagent that falls back: -p's cost_usd prices each of the child's
// requests at the model that answered it, not all at the model it
// started on.
func TestJSONCostPricesASubagentsFallbackAtItsOwnPrice(t *testing.T) {
	prices := map[string]providers.Price{"big": {Input: 10, Output: 50}, "small": {Input: 1, Output: 5}}
	var out bytes.Buffer
	p := newPrinter(formatJSON, &out, io.Discard, false)
	p.pricer = func(model string) (providers.Price, bool) { pr, ok := prices[model]; return pr, ok }
	child := func(ev loop.Event) loop.Event {
		return loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: ev}}
	}
	evs := []loop.Event{
		loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Start: true, Model: "big"}},
		child(loop.Usage{Step: 1, Model: "big", Usage: providers.Usage{InputTokens: 1000}}),
		child(loop.FellBack{From: "big", To: "small", Err: "the model server answered HTTP 529: Overloaded"}),
		child(loop.Usage{Step: 2, Model: "small", Usage: providers.Usage{InputTokens: 2000, OutputTokens: 200}}),
		child(loop.Done{Reason: loop.StopAnswered, Usage: providers.Usage{InputTokens: 3000, OutputTokens: 200}}),
	}
	for _, ev := range evs {
		if err := p.event(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.finish(loop.Done{Reason: loop.StopAnswered, Answer: "ok"}, "s1", "big"); err != nil {
		t.Fatal(err)
	}
	var res struct {
		CostUSD *float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.CostUSD == nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := (1000*10.0 + 2000*1.0 + 200*5.0) / 1e6
	if math.Abs(*res.CostUSD-want) > 1e-12 {
		t.Errorf("cost_usd %v, want %v (the child's fallback at its own price)", *res.CostUSD, want)
	}
}

// With --verbose, a subagent's fallback has its line on stderr, after the
// child's description, as the session's own has.
func TestVerboseTellsASubagentsFallback(t *testing.T) {
	var errOut bytes.Buffer
	p := newPrinter(formatText, io.Discard, &errOut, true)
	ev := loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Description: "find the parser",
		Event: loop.FellBack{From: "big", To: "small", Err: "the model server answered HTTP 529: Overloaded"}}}
	if err := p.event(ev); err != nil {
		t.Fatal(err)
	}
	if want := "· [find the parser] big failed after its retries (the model server answered HTTP 529: Overloaded): this turn goes on with small"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}
