package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Close waits for the tool lists being fetched again after list_changed,
// as for the servers' other goroutines, and a fetch that the closing cut
// short is no problem to warn about: nothing of the manager runs, or
// calls back, after Close.
func TestCloseWaitsForToolListRefreshes(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	noop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	s.AddTool(&sdk.Tool{Name: "first", Description: "First.", InputSchema: obj}, noop)
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	stalled := make(chan struct{}, 1)
	var lists atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/list"`)) && lists.Add(1) > 1 {
			select { // the second list stalls until its request ends
			case stalled <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()

	var closing atomic.Bool
	hold := make(chan struct{})
	var holdOnce sync.Once
	defer holdOnce.Do(func() { close(hold) })
	late := make(chan string, 4)
	m := NewManager([]Config{{Name: "t", URL: hs.URL, StartupTimeout: time.Minute}}, Options{Warn: func(msg string) {
		if closing.Load() {
			late <- msg
			<-hold // a caller still busy with the warning after Close
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.Start(ctx)
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	m.Wait(wctx)
	wcancel()

	s.AddTool(&sdk.Tool{Name: "second", Description: "Second.", InputSchema: obj}, noop)
	select {
	case <-stalled:
	case <-time.After(20 * time.Second):
		t.Fatal("the changed tool list was never fetched")
	}
	closing.Store(true)
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		holdOnce.Do(func() { close(hold) })
		select {
		case msg := <-late:
			t.Fatalf("Close did not return; warned while closing: %s", msg)
		default:
		}
		t.Fatal("Close did not return")
	}
	m.mu.Lock()
	n := m.refreshing
	m.mu.Unlock()
	if n != 0 {
		t.Errorf("Close returned while %d tool list fetch(es) still ran", n)
	}
	select {
	case msg := <-late:
		t.Errorf("warned while closing: %s", msg)
	default:
	}
}
