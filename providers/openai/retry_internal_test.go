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
	c.retry.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
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
