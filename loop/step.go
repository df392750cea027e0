package loop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

// The parts of one step of a turn, in the order run takes them: ask sends
// the request and records the response, finish decides whether the turn
// ends on it, carryOn runs its tool calls and gets the next step ready.

// response is a step's response as the turn reads it.
type response struct {
	msg    providers.Message // as recorded (a cut response without its unfinished calls)
	finish providers.FinishReason
	text   string // the answer: msg's text after what the cut or paused responses before it wrote
	calls  []providers.ToolCall
	cut    bool // the output limit cut it
	paused bool // the provider paused it (Anthropic's pause_turn)
}

// ask sends req, the request of step (once the configured PrepareFunc has
// seen it), and records the response, without the tool calls a response
// cut by the output limit was writing. A stream that failed ends the turn.
func (t *turn) ask(step int, req providers.Request) (response, *stop) {
	req = t.public(step, req)
	t.emit(StepStarted{Step: step})
	ctx, traced := t.traceRequest(step, false, req)
	began := false // a tool call's arguments streamed (no delta says so)
	resp, err := t.stream(ctx, req, func(ev providers.StreamEvent) {
		if b, ok := ev.(providers.ToolCallBegin); ok {
			began = true
			// The call's schema compiles while its arguments stream.
			go t.cfg.Catalog.Current().Compile(b.Name)
		}
		t.forward(ev)
	})
	traced(resp, err)
	if resp == nil {
		resp = &providers.Response{}
	}
	if err != nil && t.ctx.Err() != nil && resp.Usage == (providers.Usage{}) && (began || len(keepText(resp.Message).Parts) > 0) {
		// Cancelled while it streamed (text, or a call the response drops):
		// the server bills what it read and wrote, but said nothing of it.
		// Estimated, so that /cost and the caps do not count it as free;
		// the estimate calibrates nothing.
		resp.Usage = t.cancelledUsage(req, resp.Message)
	} else {
		u := resp.Usage
		t.conv.Measured(conversation.Measure{Bytes: conversation.SizeOf(req).Total(), InputTokens: u.InputTokens,
			Cached: u.CachedInputTokens > 0 || u.CacheWriteTokens > 0})
	}
	t.addUsage(step, resp.Usage)
	if err != nil {
		return response{}, t.streamFailed(resp, err)
	}
	msg := resp.Message
	msg.Role = providers.RoleAssistant
	r := response{
		finish: resp.FinishReason,
		cut:    resp.FinishReason == providers.FinishLength,
		paused: resp.FinishReason == providers.FinishPause,
	}
	if r.cut {
		msg = dropCutCalls(msg)
		t.cuts++
	} else {
		t.cuts = 0
	}
	if err := t.recordResponse(msg, resp.Usage); err != nil {
		return response{}, &stop{StopError, msg.Text(), err}
	}
	if text := msg.Text(); text != "" {
		t.wrote = append(t.wrote, text)
	}
	// The answer is this response's text, after what the responses
	// that were cut or paused before it wrote.
	r.msg, r.text, r.calls = msg, t.said+msg.Text(), msg.ToolCalls()
	return r, nil
}

// cancelledUsage estimates the usage of req, cancelled after its stream
// gave msg: the request's input tokens as the conversation estimates them
// (read from the prompt cache up to the last request's size, when the
// server cached that one) and msg's text and reasoning as output.
func (t *turn) cancelledUsage(req providers.Request, msg providers.Message) providers.Usage {
	last := t.conv.LastMeasure()
	in := t.conv.Estimate(req)
	u := providers.Usage{InputTokens: in, OutputTokens: conversation.Tokens(conversation.MessageSize(keepText(msg)))}
	if last.Cached {
		u.CachedInputTokens = min(last.InputTokens, in)
	}
	return u
}

// streamFailed ends the turn on a response whose stream failed with err,
// keeping the text and reasoning it streamed in the conversation: as
// cancelled when the turn's context is done, else as an error.
func (t *turn) streamFailed(resp *providers.Response, err error) *stop {
	partial := keepText(resp.Message)
	text := partial.Text()
	if len(partial.Parts) > 0 {
		kept := partial
		if t.ctx.Err() != nil {
			// The model reads, next turn, that its answer was cut here.
			kept.Parts = append(slices.Clip(kept.Parts), providers.Text{Text: CancelledMarker})
		}
		if rerr := t.record(kept, resp.Usage); rerr != nil {
			return &stop{StopError, text, rerr}
		}
	}
	if t.ctx.Err() != nil {
		return &stop{StopCancelled, text, t.ctx.Err()}
	}
	return &stop{StopError, text, err}
}

// finish ends the turn on response r of step when it is the answer (no
// tool calls, not cut or paused, and the answer's check and the
// before-stop check let the turn end, see answered), a refusal, or the
// output limit's cut once too often in a row.
func (t *turn) finish(step int, r response) *stop {
	switch {
	case r.finish == providers.FinishContentFilter && len(r.calls) == 0:
		return &stop{StopRefused, r.text, errors.New("the model declined to answer (its provider's refusal or content filter)")}
	case len(r.calls) == 0 && !r.cut && !r.paused:
		if s := t.answered(step, r.text); s != nil {
			return s
		}
	}
	if r.cut && t.cuts > MaxContinuations {
		answer := fmt.Sprintf("The model's response was cut off by its output limit %d times in a row, so the turn stopped. "+
			"Ask for a shorter answer or for the work in smaller steps.", t.cuts)
		if r.text != "" {
			answer = r.text + "\n\n" + answer
		}
		return &stop{StopMaxTokens, answer, errors.New("the response was cut off by the output limit")}
	}
	return nil
}

// carryOn gets the step after step ready: it runs response r's tool calls,
// keeps the text of a cut or paused response for the next to go on from,
// and asks the model to continue a cut one. The turn ends when it is
// cancelled or at the step limit.
func (t *turn) carryOn(step int, r response) *stop {
	t.said = ""
	if len(r.calls) == 0 && (r.cut || r.paused) {
		t.said = r.text // the next response goes on from here
	}
	if len(r.calls) > 0 {
		if err := t.runCalls(r.calls); err != nil {
			return &stop{StopError, r.msg.Text(), err}
		}
	}
	if t.ctx.Err() != nil {
		return &stop{StopCancelled, r.text, t.ctx.Err()}
	}
	if r.cut {
		if err := t.record(userMessage(continuePrompt), providers.Usage{}); err != nil {
			return &stop{StopError, r.text, err}
		}
	}
	// A paused response (Anthropic's pause_turn) is sent back as it is:
	// the next request lets the model go on.
	if step >= t.cfg.MaxSteps {
		answer := fmt.Sprintf("Stopped after %d steps (the step limit, --max-steps) before the model gave a final answer.", step)
		if r.text != "" {
			answer = r.text + "\n\n" + answer
		}
		return &stop{StopMaxSteps, answer, nil}
	}
	return nil
}
