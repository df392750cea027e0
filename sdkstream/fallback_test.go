package sdkstream

import (
	"context"
	"math"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// fallingBack is a Turn whose first step runs on "m" and whose second,
// after m failed past its retries, on "small".
func fallingBack(_ context.Context, _ turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	ch <- loop.StepStarted{Step: 1}
	ch <- loop.Usage{Step: 1, Model: "m", Usage: providers.Usage{InputTokens: 1000, OutputTokens: 100}}
	ch <- loop.StepStarted{Step: 2}
	ch <- loop.FellBack{From: "m", To: "small", Err: "the model server answered HTTP 529: Overloaded"}
	ch <- loop.Usage{Step: 2, Model: "small", Usage: providers.Usage{InputTokens: 2000, OutputTokens: 200}}
	ch <- loop.Done{Answer: "done", Reason: loop.StopAnswered, Steps: 2, Usage: providers.Usage{InputTokens: 3000, OutputTokens: 300}}
	close(ch)
	return ch
}

// The client hears of the fallback (a system message of subtype
// model_fallback), and the result prices each model's tokens at its own
// price in total_cost_usd and modelUsage.
func TestAFallbackIsToldAndPricedPerModel(t *testing.T) {
	prices := map[string]providers.Price{"m": {Input: 3, Output: 15}, "small": {Input: 1, Output: 5}}
	h := newHost(t, Config{Turn: fallingBack, Init: Init{Model: "m"}, Price: priceList(prices)})
	h.send(user("go"))
	msgs := h.until("result")
	var fell map[string]any
	for _, m := range msgs {
		if m["type"] == "system" && m["subtype"] == "model_fallback" {
			fell = m
		}
	}
	if fell == nil || fell["from"] != "m" || fell["to"] != "small" {
		t.Errorf("no model_fallback message: %v", msgs)
	}
	res := msgs[len(msgs)-1]
	want := (1000*3.0 + 100*15.0 + 2000*1.0 + 200*5.0) / 1e6
	if got := res["total_cost_usd"].(float64); math.Abs(got-want) > 1e-12 {
		t.Errorf("total_cost_usd %v, want %v", got, want)
	}
	mu := res["modelUsage"].(map[string]any)
	if small, _ := mu["small"].(map[string]any); small == nil || small["inputTokens"] != 2000.0 {
		t.Errorf("modelUsage %v", mu)
	}
}

// subagentFallingBack is a Turn whose subagent starts on "m" and falls
// back to "small".
func subagentFallingBack(_ context.Context, _ turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	child := func(ev loop.Event) loop.Event {
		return loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: ev}}
	}
	ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Start: true, Model: "m"}}
	ch <- child(loop.Usage{Step: 1, Model: "m", Usage: providers.Usage{InputTokens: 1000}})
	ch <- child(loop.FellBack{From: "m", To: "small", Err: "the model server answered HTTP 529: Overloaded"})
	ch <- child(loop.Usage{Step: 2, Model: "small", Usage: providers.Usage{InputTokens: 2000, OutputTokens: 200}})
	ch <- child(loop.Done{Answer: "found", Reason: loop.StopAnswered, Steps: 2, Usage: providers.Usage{InputTokens: 3000, OutputTokens: 200}})
	ch <- loop.Done{Answer: "done", Reason: loop.StopAnswered, Steps: 1}
	close(ch)
	return ch
}

// A subagent's fallback is priced at the fallback's price in
// total_cost_usd, not at the model the child started on.
func TestASubagentsFallbackIsPricedAtItsOwnPrice(t *testing.T) {
	prices := map[string]providers.Price{"m": {Input: 10, Output: 50}, "small": {Input: 1, Output: 5}}
	h := newHost(t, Config{Turn: subagentFallingBack, Init: Init{Model: "m"}, Price: priceList(prices)})
	h.send(user("go"))
	msgs := h.until("result")
	res := msgs[len(msgs)-1]
	want := (1000*10.0 + 2000*1.0 + 200*5.0) / 1e6
	if got := res["total_cost_usd"].(float64); math.Abs(got-want) > 1e-12 {
		t.Errorf("total_cost_usd %v, want %v", got, want)
	}
}

// voided is a Turn whose first attempt streams half an answer that a retry
// and then a fallback void: only the fallback's answer is an assistant
// message.
func voided(_ context.Context, _ turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	ch <- loop.StepStarted{Step: 1}
	ch <- loop.TextDelta{Text: "HALF-ONE"}
	ch <- loop.Retry{Attempt: 1, Max: 1, Err: "the model server answered HTTP 529: Overloaded", Discarded: true}
	ch <- loop.TextDelta{Text: "HALF-TWO"}
	ch <- loop.FellBack{From: "m", To: "small", Err: "the model server answered HTTP 529: Overloaded", Discarded: true}
	ch <- loop.TextDelta{Text: "WHOLE"}
	ch <- loop.Usage{Step: 1, Model: "small", Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}}
	ch <- loop.Done{Answer: "WHOLE", Reason: loop.StopAnswered, Steps: 1}
	close(ch)
	return ch
}

// The text a retry or a fallback discarded is no assistant message: the
// client's transcript holds the answer that stands.
func TestDiscardedTextIsNoAssistantMessage(t *testing.T) {
	h := newHost(t, Config{Turn: voided, Init: Init{Model: "m"}})
	h.send(user("go"))
	var texts []string
	for _, m := range h.until("result") {
		if m["type"] != "assistant" {
			continue
		}
		for _, b := range m["message"].(map[string]any)["content"].([]any) {
			if s, ok := b.(map[string]any)["text"].(string); ok {
				texts = append(texts, s)
			}
		}
	}
	if len(texts) != 1 || texts[0] != "WHOLE" {
		t.Errorf("assistant texts %q, want only the fallback's", texts)
	}
}

// An assistant message names the model that wrote it: the fallback's after
// a fallback, a subagent's own.
func TestAssistantMessagesNameTheModelThatWroteThem(t *testing.T) {
	turnFn := func(_ context.Context, _ turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event, 16)
		ch <- loop.StepStarted{Step: 1}
		ch <- loop.FellBack{From: "m", To: "small", Err: "the model server answered HTTP 529: Overloaded"}
		ch <- loop.TextDelta{Text: "BY-SMALL"}
		ch <- loop.Usage{Step: 1, Model: "small", Usage: providers.Usage{InputTokens: 1}}
		ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Start: true, Model: "child-model"}}
		ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: loop.TextDelta{Text: "BY-CHILD"}}}
		ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: loop.Done{Reason: loop.StopAnswered}}}
		ch <- loop.Done{Answer: "BY-SMALL", Reason: loop.StopAnswered, Steps: 1}
		close(ch)
		return ch
	}
	h := newHost(t, Config{Turn: turnFn, Init: Init{Model: "m"}})
	h.send(user("go"))
	models := map[string]string{}
	for _, m := range h.until("result") {
		if m["type"] != "assistant" {
			continue
		}
		msg := m["message"].(map[string]any)
		for _, b := range msg["content"].([]any) {
			if s, ok := b.(map[string]any)["text"].(string); ok {
				models[s], _ = msg["model"].(string)
			}
		}
	}
	if models["BY-SMALL"] != "small" || models["BY-CHILD"] != "child-model" {
		t.Errorf("the messages' models: %v", models)
	}
}

// childFallingBack is a Turn whose subagent falls back from "m" to "small".
func childFallingBack(_ context.Context, _ turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	child := func(ev loop.Event) loop.Event {
		return loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: ev, Start: ev == nil, Model: "m"}}
	}
	ch <- loop.ToolCallStarted{ID: "t1", Name: "task", Arguments: `{"prompt":"look"}`}
	ch <- child(nil)
	ch <- child(loop.FellBack{From: "m", To: "small", Err: "the model server answered HTTP 529: Overloaded"})
	ch <- child(loop.Done{Reason: loop.StopAnswered})
	ch <- loop.ToolCallFinished{ID: "t1", Name: "task", Content: "found"}
	ch <- loop.Done{Answer: "done", Reason: loop.StopAnswered, Steps: 1}
	close(ch)
	return ch
}

// A subagent's fallback is told too, with the task call's id.
func TestASubagentsFallbackIsTold(t *testing.T) {
	h := newHost(t, Config{Turn: childFallingBack, Init: Init{Model: "m"}})
	h.send(user("go"))
	msgs := h.until("result")
	for _, m := range msgs {
		if m["type"] == "system" && m["subtype"] == "model_fallback" && m["parent_tool_use_id"] == "t1" && m["to"] == "small" {
			return
		}
	}
	t.Errorf("no model_fallback message for the subagent: %v", msgs)
}
