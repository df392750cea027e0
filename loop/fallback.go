package loop

import (
	"context"
	"errors"
	"net/http"

	"github.com/agent-dev/agent/providers"
)

// Fallback is a model a turn moves to when the model before it still
// fails after the provider's retries (Claude Code's fallbackModel, a
// list here): an overload, a rate limit or a server error.
type Fallback struct {
	// Model is the model asked.
	Model string
	// Provider sends its requests: another profile's server; nil is the
	// loop's own Provider (a model of the same server).
	Provider providers.Provider
}

// FellBack reports that a request failed on model From after the
// provider's retries and is sent again to To; the rest of the turn asks
// To (the next turn starts on the loop's own model again). Discarded is
// true when the failed attempt had streamed text or reasoning: it is
// void, and the deltas that follow start the response again.
type FellBack struct {
	From, To  string
	Err       string
	Discarded bool
}

func (FellBack) isEvent() {}

// fallsBack reports whether err, a request's failure after the provider's
// retries, is worth sending to the next model: a server overloaded (529,
// 503), rate limited (429) or failing (5xx), never the request's own
// fault (4xx), a refused key or a cancellation.
func fallsBack(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var apiErr *providers.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500 && providers.RetryableStatus(apiErr.StatusCode)
}

// stream sends req to the turn's current model and, while the answer is a
// failure fallsBack accepts and a fallback is left, to the next one,
// reporting each move with FellBack. req.Model is set to the model asked.
func (t *turn) stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	for {
		req.Model = t.model()
		streamed := false
		resp, err := t.provider().Stream(ctx, req, func(ev providers.StreamEvent) {
			switch ev := ev.(type) {
			case providers.TextDelta, providers.ReasoningDelta, providers.ToolCallBegin:
				streamed = true
			case providers.Retry:
				if ev.Discarded {
					streamed = false
				}
			}
			onEvent(ev)
		})
		next := t.nextFallback()
		if err == nil || ctx.Err() != nil || next == 0 || !fallsBack(err) {
			return resp, err
		}
		if resp != nil && resp.Usage != (providers.Usage{}) {
			t.addUsage(0, resp.Usage)
		}
		from := t.model()
		t.fellBack = next
		t.emit(FellBack{From: from, To: t.model(), Err: err.Error(), Discarded: streamed})
	}
}

// nextFallback is the fellBack of the fallback after the current one,
// passing over the loop's own model on its own server (after /model
// chose a model the fallbacks name, it would be asked again); 0 when none
// is left.
func (t *turn) nextFallback() int {
	for i := t.fellBack; i < len(t.cfg.Fallbacks); i++ {
		if fb := t.cfg.Fallbacks[i]; fb.Provider != nil || fb.Model != t.cfg.Model {
			return i + 1
		}
	}
	return 0
}

// model is the model the turn asks now: the loop's, or the fallback it
// moved to.
func (t *turn) model() string {
	if t.fellBack == 0 {
		return t.cfg.Model
	}
	return t.cfg.Fallbacks[t.fellBack-1].Model
}

// provider is the provider of model().
func (t *turn) provider() providers.Provider {
	if t.fellBack > 0 {
		if p := t.cfg.Fallbacks[t.fellBack-1].Provider; p != nil {
			return p
		}
	}
	return t.cfg.Provider
}
