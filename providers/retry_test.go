package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	c := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.Normalized()
	for retry, want := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		want *= time.Millisecond
		for range 20 {
			d, ok := c.Backoff(retry, 0)
			if !ok || d < want/2 || d > want {
				t.Fatalf("retry %d: backoff %v, want in [%v, %v]", retry, d, want/2, want)
			}
		}
	}
	if d, ok := c.Backoff(0, 500*time.Millisecond); !ok || d != 500*time.Millisecond {
		t.Errorf("Retry-After 500ms: %v %v", d, ok)
	}
	if _, ok := c.Backoff(0, 2*time.Second); ok {
		t.Error("a Retry-After beyond MaxDelay was accepted")
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestDoRetriesOnlyRetryableErrors(t *testing.T) {
	var waits []time.Duration
	p := RetryPolicy{MaxRetries: 3, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}.Normalized()
	errs := []error{
		&APIError{StatusCode: 529, Message: "overloaded", Retryable: true, RetryAfter: time.Second},
		&APIError{StatusCode: 0, Message: "refused", Retryable: true},
		nil,
	}
	var events []Retry
	calls := 0
	err := p.Do(context.Background(), func(e StreamEvent) { events = append(events, e.(Retry)) }, func() error {
		calls++
		return errs[calls-1]
	})
	if err != nil || calls != 3 || len(events) != 2 || events[0].Delay != time.Second || len(waits) != 2 {
		t.Fatalf("err %v, calls %d, events %v, waits %v", err, calls, events, waits)
	}
	calls = 0
	err = p.Do(context.Background(), nil, func() error { calls++; return &APIError{StatusCode: 400} })
	if calls != 1 || err == nil {
		t.Errorf("a 400 was retried: %d calls, %v", calls, err)
	}
	calls = 0
	plain := errors.New("cut")
	if err := p.Do(context.Background(), nil, func() error { calls++; return plain }); err != plain || calls != 1 {
		t.Errorf("a stream error was retried: %d calls, %v", calls, err)
	}
	calls = 0
	_ = p.Do(context.Background(), nil, func() error { calls++; return &APIError{StatusCode: 503, Retryable: true} })
	if calls != 4 {
		t.Errorf("MaxRetries 3: %d calls, want 4", calls)
	}
}

func TestRetryableStatus(t *testing.T) {
	for status, want := range map[int]bool{
		400: false, 401: false, 403: false, 404: false, 405: false, 408: true, 413: false, 422: false,
		429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 505: false, 529: true,
	} {
		if got := RetryableStatus(status); got != want {
			t.Errorf("RetryableStatus(%d) = %v", status, got)
		}
	}
}

func TestDoRetriesBrokenStreams(t *testing.T) {
	p := RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }}.Normalized()
	for _, sentinel := range []error{ErrStreamCut, ErrStreamIdle} {
		calls := 0
		var events []Retry
		err := p.Do(context.Background(), func(e StreamEvent) { events = append(events, e.(Retry)) }, func() error {
			calls++
			return fmt.Errorf("reading: %w", sentinel)
		})
		if !errors.Is(err, sentinel) || calls != 3 || len(events) != 2 || !errors.Is(events[0].Err, sentinel) {
			t.Errorf("%v: err %v, %d calls, %d events", sentinel, err, calls, len(events))
		}
	}
	calls := 0
	_ = p.Do(context.Background(), nil, func() error { calls++; return fmt.Errorf("x: %w", context.Canceled) })
	if calls != 1 {
		t.Errorf("a cancellation was retried %d times", calls-1)
	}
}

func TestBodyMessage(t *testing.T) {
	tests := []struct {
		body   string
		status int
		want   string
	}{
		{"", 502, "Bad Gateway"},
		{"  upstream timed out \n", 504, "upstream timed out"},
		{"<!DOCTYPE HTML>\n<html><head><title>Error &amp; response</title></head><body>...</body></html>", 501,
			`an HTML page "Error & response" (HTTP 501 Not Implemented): is this an API server?`},
		{"<html><body>oops</body></html>", 404, "an HTML page (HTTP 404 Not Found): is this an API server?"},
		{strings.Repeat("x", 600), 500, strings.Repeat("x", 500) + "…"},
	}
	for _, tt := range tests {
		if got := BodyMessage(tt.body, tt.status); got != tt.want {
			t.Errorf("BodyMessage(%.30q, %d) = %q, want %q", tt.body, tt.status, got, tt.want)
		}
	}
}

// A stream retried after it had passed deltas on says so in its Retry event (the front-end drops what it showed);
// one that failed before any delta does not.
func TestDoStreamSaysWhetherDeltasWereDiscarded(t *testing.T) {
	p := RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }}.Normalized()
	attempts, reported := 0, false
	var discarded []bool
	err := p.DoStream(context.Background(), func(ev StreamEvent) {
		if r, ok := ev.(Retry); ok {
			discarded = append(discarded, r.Discarded)
		}
	}, func() bool { return reported }, func() error {
		attempts++
		reported = attempts == 2 // the second attempt is cut after a delta; the first fails before any
		if attempts < 3 {
			return ErrStreamCut
		}
		return nil
	})
	if err != nil || attempts != 3 {
		t.Fatalf("err %v after %d attempts", err, attempts)
	}
	if len(discarded) != 2 || discarded[0] || !discarded[1] {
		t.Errorf("Retry events' Discarded: %v, want [false true]", discarded)
	}
}
