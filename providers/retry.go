package providers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Defaults of a RetryPolicy's and an adapter's zero fields.
const (
	DefaultMaxRetries  = 4
	DefaultIdleTimeout = 90 * time.Second
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 60 * time.Second
)

// RetryPolicy says when and how often a request is sent again: one that
// failed before any byte of its response arrived with a retryable error, or
// whose stream was cut or went silent (its partial response is discarded).
// Every adapter uses one.
type RetryPolicy struct {
	// MaxRetries is how many times a request is sent again; 0 means
	// DefaultMaxRetries and a negative value none.
	MaxRetries int
	// BaseDelay is the first retry's backoff; each retry doubles it, with
	// jitter, up to MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. A Retry-After longer than MaxDelay is not
	// waited for: the error is returned at once.
	MaxDelay time.Duration
	// Sleep waits d or until ctx ends; nil sleeps for real. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Normalized returns p with its zero fields set to the defaults and a
// negative MaxRetries set to 0.
func (p RetryPolicy) Normalized() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	return p
}

// Do calls attempt until it succeeds or fails with an error that is not
// Retryable, or the retries are spent, or the server asked for a wait beyond
// MaxDelay. Before each wait it reports a Retry event to onEvent (which may
// be nil). p must be Normalized. It returns attempt's last error, or the
// context's error (wrapped) when ctx ended during a wait. The caller's
// attempt must start its response afresh: a cut stream's part is discarded.
func (p RetryPolicy) Do(ctx context.Context, onEvent func(StreamEvent), attempt func() error) error {
	for retries := 0; ; retries++ {
		err := attempt()
		if err == nil || !Retryable(err) || retries >= p.MaxRetries || ctx.Err() != nil {
			return err
		}
		var retryAfter time.Duration
		if apiErr := (*APIError)(nil); errors.As(err, &apiErr) {
			retryAfter = apiErr.RetryAfter
		}
		delay, ok := p.Backoff(retries, retryAfter)
		if !ok {
			return err
		}
		if onEvent != nil {
			onEvent(Retry{Attempt: retries + 1, Max: p.MaxRetries, Delay: delay, Err: err})
		}
		// The request's span (telemetry's chat span, when there is one)
		// shows the retry: its status, not its message, which may carry
		// what the server echoed of the request.
		trace.SpanFromContext(ctx).AddEvent("retry", trace.WithAttributes(attribute.Int("agent.retry.attempt", retries+1),
			attribute.Int64("agent.retry.delay_ms", delay.Milliseconds()), attribute.String("error.type", retryErrorType(err))))
		if err := p.Sleep(ctx, delay); err != nil {
			return fmt.Errorf("waiting to retry the model request: %w", err)
		}
	}
}

// DoStream is Do for a streamed answer: before each wait, the Retry event
// it reports to onEvent (not nil) says Discarded when reported() is true,
// that is when the failed attempt had already passed deltas on, which the
// next attempt's answer replaces.
func (p RetryPolicy) DoStream(ctx context.Context, onEvent func(StreamEvent), reported func() bool, attempt func() error) error {
	return p.Do(ctx, func(ev StreamEvent) {
		if r, ok := ev.(Retry); ok && reported() {
			r.Discarded = true
			ev = r
		}
		onEvent(ev)
	}, attempt)
}

// Backoff returns the wait before retry number retry+1: the server's
// Retry-After when it sent one, else BaseDelay doubled per retry, capped at
// MaxDelay, with "equal jitter" (a random half). ok is false when the
// server asked for a wait longer than MaxDelay.
func (p RetryPolicy) Backoff(retry int, retryAfter time.Duration) (d time.Duration, ok bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= p.MaxDelay
	}
	d = p.BaseDelay
	for range retry {
		if d *= 2; d >= p.MaxDelay {
			d = p.MaxDelay
			break
		}
	}
	d = min(d, p.MaxDelay)
	return d/2 + rand.N(d/2+1), true
}

// Retryable reports whether a failed attempt is worth sending again: a
// retryable *APIError, or a stream that was cut (ErrStreamCut) or went
// silent (ErrStreamIdle). The caller's cancellation never is.
func Retryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Retryable
	}
	return errors.Is(err, ErrStreamCut) || errors.Is(err, ErrStreamIdle)
}

// RetryableStatus reports whether an HTTP answer with status is worth
// sending again: 408, 409, 425, 429, and 5xx (Anthropic's 529
// overloaded_error among them) except those that cannot change by
// waiting: 501 Not Implemented, 505, 506, 508, 510 and 511. Other 4xx
// (400-404, 405, 413, 422, ...) are the request's fault and are not.
func RetryableStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported, http.StatusVariantAlsoNegotiates,
		http.StatusLoopDetected, http.StatusNotExtended, http.StatusNetworkAuthenticationRequired:
		return false
	}
	return status >= 500 && status < 600
}

// RetryAfter reads Retry-After (seconds or an HTTP date, RFC 9110 §10.2.3)
// or OpenAI's retry-after-ms; zero when absent, unreadable or past.
func RetryAfter(h http.Header, now time.Time) time.Duration {
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

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryErrorType is the kind of a retried failure, for telemetry: the
// HTTP status of an APIError, else "transport" (a connection that failed
// or a stream that was cut).
func retryErrorType(err error) string {
	if apiErr := (*APIError)(nil); errors.As(err, &apiErr) && apiErr.StatusCode != 0 {
		return strconv.Itoa(apiErr.StatusCode)
	}
	return "transport"
}
