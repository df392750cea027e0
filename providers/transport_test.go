package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestTransportRecordsTheAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer srv.Close()
	hc := NewHTTPClient(nil)
	ctx, a, stop := StartAttempt(context.Background(), time.Minute)
	defer stop()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sent, status, _ := a.Answered()
	if !sent || status != 529 || a.BodyBytes() != int64(len(body)) {
		t.Errorf("sent %v, status %d, %d bytes of %d", sent, status, a.BodyBytes(), len(body))
	}
	ferr := a.Failure(context.Background(), ctx, errors.New("x"), func(int) string { return "Overloaded" }, func(s string) string { return s })
	var ae *APIError
	if !errors.As(ferr, &ae) || !ae.Retryable || ae.RetryAfter != 3*time.Second || ae.StatusCode != 529 {
		t.Errorf("failure = %#v", ferr)
	}
}

func TestTransportIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, _, stop := StartAttempt(context.Background(), 100*time.Millisecond)
	defer stop()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := NewHTTPClient(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if err == nil || !errors.Is(context.Cause(ctx), ErrStreamIdle) {
		t.Errorf("read err %v, cause %v", err, context.Cause(ctx))
	}
}
