package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// resumableServer is an MCP server over streamable HTTP of protocol
// 2025-11-25 (the last with resumable streams) that keeps its events, so
// that a client resumes a dropped stream with Last-Event-ID. Its tool
// "slow" reports progress, waits for seen (the client got it), drops its
// response stream (the server closes it and asks for a retry after 10 ms,
// SEP-1699), reports again and answers. lastEventIDs records the
// Last-Event-ID headers it received.
func resumableServer(t *testing.T, seen <-chan struct{}) (url string, lastEventIDs func() []string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "resumable", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	obj := map[string]any{"type": "object"}
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Slow.", InputSchema: obj},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "first half"})
			select {
			case <-seen:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: 2, Total: 2, Message: "second half"})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil
		})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)})
	var mu sync.Mutex
	var ids []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			mu.Lock()
			ids = append(ids, id)
			mu.Unlock()
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), ids...) }
}

// TestDroppedStreamIsResumed: a tool call whose response stream the
// server drops gets its answer on the resumed stream (Last-Event-ID), its
// progress reaches the call's Progress, and the server is not restarted.
func TestDroppedStreamIsResumed(t *testing.T) {
	seen := make(chan struct{})
	url, ids := resumableServer(t, seen)
	m := startManager(t, []Config{{Name: "r", URL: url}}, nil)
	var mu sync.Mutex
	var progress []string
	res, err := findTool(t, m, "mcp__r__slow").Run(context.Background(), tools.Call{Args: json.RawMessage(`{}`), Progress: func(p tools.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if progress = append(progress, p.Text); len(progress) == 1 {
			close(seen)
		}
	}})
	if err != nil || res.IsError || res.Content != "finished" {
		t.Fatalf("call across a dropped stream: %+v %v", res, err)
	}
	if len(ids()) == 0 {
		t.Errorf("the client did not resume the stream with Last-Event-ID")
	}
	mu.Lock()
	defer mu.Unlock()
	// The second may arrive after the answer: notifications are not
	// ordered with responses.
	if len(progress) == 0 || progress[0] != "1/2 first half" {
		t.Errorf("progress %q", progress)
	}
	if st := m.Status(); st[0].State != StateRunning {
		t.Errorf("state after a resumed stream: %+v", st)
	}
}

// swappable serves an MCP server that can die and come back: die closes
// its sessions and serves a fresh server, whose sessions the old ones
// are not (a client's old session gets 404).
type swappable struct {
	mu      sync.Mutex
	cur     *sdk.Server
	handler http.Handler
	starts  atomic.Int32
}

func (sw *swappable) serve() {
	s := sdk.NewServer(&sdk.Implementation{Name: "phoenix", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "ping", Description: "Ping.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
		})
	sw.mu.Lock()
	old := sw.cur
	sw.cur, sw.handler = s, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	sw.mu.Unlock()
	sw.starts.Add(1)
	if old != nil {
		for ss := range old.Sessions() {
			_ = ss.Close()
		}
	}
}

func (sw *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw.mu.Lock()
	h := sw.handler
	sw.mu.Unlock()
	h.ServeHTTP(w, r)
}

// TestDeadServerIsRestarted: a server that dies is reconnecting (a call
// says so), is restarted after the backoff, and its tools come back; each
// change is said once.
func TestDeadServerIsRestarted(t *testing.T) {
	sw := &swappable{}
	sw.serve()
	hs := httptest.NewServer(sw)
	t.Cleanup(hs.Close)
	changed := make(chan struct{}, 1)
	var wmu sync.Mutex
	var warnings []string
	m := NewManager([]Config{{Name: "p", URL: hs.URL}}, Options{
		RestartDelay: 10 * time.Millisecond,
		OnChange: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		Warn: func(msg string) { wmu.Lock(); warnings = append(warnings, msg); wmu.Unlock() },
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m.Start(ctx)
	defer m.Close()
	m.Wait(ctx)
	ping := findTool(t, m, "mcp__p__ping")
	sw.serve() // the server dies; a new one answers at the same address

	// The client notices (its event stream ends, the session is gone),
	// the server is reconnecting, then running again with its tools.
	sawReconnecting := false
	for {
		st := m.Status()[0]
		if st.State == StateReconnecting {
			sawReconnecting = true
			if st.Error == "" {
				t.Errorf("reconnecting without the reason: %+v", st)
			}
		}
		if sawReconnecting && st.State == StateRunning && len(st.Tools) == 1 {
			break
		}
		if st.State == StateFailed {
			t.Fatalf("gave up: %+v", st)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("not restarted: %+v", m.Status())
		}
	}
	res, err := findTool(t, m, "mcp__p__ping").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || res.Content != "pong" {
		t.Errorf("call after the restart: %+v %v", res, err)
	}
	_ = ping
	wmu.Lock()
	defer wmu.Unlock()
	text := strings.Join(warnings, "\n")
	if strings.Count(text, "MCP server p stopped: ") != 1 || strings.Count(text, "MCP server p is running again") != 1 {
		t.Errorf("warnings %q", warnings)
	}
}

// TestRestartsGiveUp: a server that dies and answers 503 from then on is
// restarted MaxRestarts times, then failed with its reason.
func TestRestartsGiveUp(t *testing.T) {
	sw := &swappable{}
	sw.serve()
	var gone atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.Error(w, "gone for good", http.StatusServiceUnavailable)
			return
		}
		sw.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	changed := make(chan struct{}, 1)
	m := NewManager([]Config{{Name: "p", URL: hs.URL}}, Options{RestartDelay: time.Millisecond, MaxRestarts: 2,
		OnChange: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m.Start(ctx)
	defer m.Close()
	m.Wait(ctx)
	gone.Store(true)
	sw.serve()
	for m.Status()[0].State != StateFailed {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("never gave up: %+v", m.Status())
		}
	}
	if st := m.Status()[0]; !strings.Contains(st.Error, "503") && !strings.Contains(st.Error, "gone for good") && !strings.Contains(st.Error, "Service Unavailable") {
		t.Errorf("failed without the reason: %+v", st)
	}
}
