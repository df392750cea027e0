package openai

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/providers"
)

func TestRetryAfterHonoured(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	srv := scripted.New(t,
		scripted.Error(429, "slow down").WithRetryAfter("2"),
		scripted.Error(503, "busy").WithRetryAfter(date),
		scripted.Text("ok"),
	)
	c := New(Config{BaseURL: srv.URL()})
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	var events []time.Duration
	_, err := c.Stream(context.Background(), providers.Request{Model: "m"}, func(e providers.StreamEvent) {
		if r, ok := e.(providers.Retry); ok {
			events = append(events, r.Delay)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] < 28*time.Second || waits[1] > 30*time.Second {
		t.Errorf("waits = %v", waits)
	}
	if len(events) != 2 || events[0] != waits[0] || events[1] != waits[1] {
		t.Errorf("retry events = %v, waits %v", events, waits)
	}
}

func TestBackoff(t *testing.T) {
	c := New(Config{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second})
	for retry, want := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		want *= time.Millisecond
		for range 20 {
			d, ok := c.backoff(retry, 0)
			if !ok || d < want/2 || d > want {
				t.Fatalf("retry %d: backoff %v, want in [%v, %v]", retry, d, want/2, want)
			}
		}
	}
	if d, ok := c.backoff(0, 500*time.Millisecond); !ok || d != 500*time.Millisecond {
		t.Errorf("Retry-After 500ms: %v %v", d, ok)
	}
	if _, ok := c.backoff(0, 2*time.Second); ok {
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
		if got := retryAfter(tt.h, now); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}
