package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The functions WhenRequestWritten adds run once a request is written,
// body included, before its answer comes: the server may hold its answer
// until they ran. They run once per request, for each request sent with
// the context or one derived from it, and a request without them is sent
// as before.
func TestWhenRequestWrittenRunsOnceTheRequestIsOut(t *testing.T) {
	written := make(chan struct{}, 4)
	var runs atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Hooked") != "" {
			select {
			case <-written: // the client's function ran: the request was out
			case <-time.After(time.Minute): // a bound on failure, not a wait for success
				http.Error(w, "the function never ran", http.StatusInternalServerError)
				return
			}
		}
		w.Write(body)
	}))
	defer srv.Close()
	client := NewHTTPClient(nil)
	ctx := WhenRequestWritten(context.Background(), func() {
		runs.Add(1)
		written <- struct{}{}
	})
	ctx, cancel := context.WithCancel(ctx) // derived: still hooked
	defer cancel()
	send := func(ctx context.Context, hooked bool) string {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(strings.Repeat("x", 64<<10)))
		if err != nil {
			t.Fatal(err)
		}
		if hooked {
			req.Header.Set("X-Hooked", "1")
		}
		actx, _, stop := StartAttempt(req.Context(), time.Minute)
		defer stop()
		resp, err := client.Do(req.WithContext(actx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		return string(b)
	}
	for range 2 {
		if got := send(ctx, true); len(got) != 64<<10 {
			t.Fatalf("the answer has %d bytes, want the request's %d", len(got), 64<<10)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("the function ran %d times for two requests, want 2", n)
	}
	send(context.Background(), false)
	if n := runs.Load(); n != 2 {
		t.Errorf("a request without the function ran it: %d runs", n)
	}
}
