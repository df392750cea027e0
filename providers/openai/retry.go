package openai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/providers"
	goopenai "github.com/sashabaranov/go-openai"
)

// requestError classifies a failure to obtain a stream: cancellation,
// idleness before the headers, an HTTP error answer (*providers.APIError
// with the server's message and Retry-After) or a connection failure
// (*providers.APIError with StatusCode 0, retryable).
func (c *Client) requestError(ctx, actx context.Context, a *attempt, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("sending the model request: %w", ctx.Err())
	}
	if errors.Is(context.Cause(actx), providers.ErrStreamIdle) {
		return fmt.Errorf("no answer from the model server for %s: %w", c.cfg.IdleTimeout, providers.ErrStreamIdle)
	}
	sent, status, header := a.answered()
	switch {
	case status != 0:
		return &providers.APIError{
			StatusCode: status,
			Message:    c.redact(serverMessage(err, status)),
			Retryable:  status == http.StatusTooManyRequests || status >= 500,
			RetryAfter: retryAfter(header, time.Now()),
		}
	case !sent:
		return fmt.Errorf("building the model request: %s", c.redact(err.Error()))
	default:
		return &providers.APIError{Message: c.redact(err.Error()), Retryable: true}
	}
}

// serverMessage is the message of a JSON error body, or the body itself
// (shortened), or the status text.
func serverMessage(err error, status int) string {
	var ae *goopenai.APIError
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		if body := strings.TrimSpace(string(re.Body)); body != "" {
			if len(body) > 500 {
				body = body[:500] + "…"
			}
			return body
		}
	}
	return http.StatusText(status)
}

// rejectsStreamOptions reports whether e is a server's refusal of the
// stream_options field.
func rejectsStreamOptions(e *providers.APIError) bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 && !e.IsAuth() && e.StatusCode != http.StatusTooManyRequests &&
		strings.Contains(strings.ToLower(e.Message), "stream_options")
}

// backoff returns the wait before retry number retry+1: the server's
// Retry-After when it sent one, else BaseDelay doubled per retry, capped at
// MaxDelay, with "equal jitter" (a random half). ok is false when the
// server asked for a wait longer than MaxDelay.
func (c *Client) backoff(retry int, retryAfter time.Duration) (d time.Duration, ok bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= c.cfg.MaxDelay
	}
	d = c.cfg.BaseDelay
	for range retry {
		if d *= 2; d >= c.cfg.MaxDelay {
			d = c.cfg.MaxDelay
			break
		}
	}
	d = min(d, c.cfg.MaxDelay)
	return d/2 + rand.N(d/2+1), true
}

// retryAfter reads Retry-After (seconds or an HTTP date, RFC 9110 §10.2.3)
// or OpenAI's retry-after-ms; zero when absent, unreadable or past.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return max(0, time.Duration(s*float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}
