package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// phoenix is a streamable HTTP MCP server the test controls: its tool
// "slow" drops its response stream once (the server closes it and asks
// the client to retry after 10 ms, SEP-1699; the events are kept, so the
// client resumes with Last-Event-ID), "ping" answers pong. die closes its
// sessions and serves a fresh server at the same address: the agent's
// session is gone (404) and it must start a new one. listed is signalled
// at each tools/list (before it is answered).
type phoenix struct {
	mu      sync.Mutex
	cur     *sdk.Server
	handler http.Handler
	resumed int // requests with Last-Event-ID
	listed  chan struct{}
}

func newPhoenix(t *testing.T) (*phoenix, string) {
	p := &phoenix{listed: make(chan struct{}, 16)}
	p.die()
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	return p, hs.URL
}

func (p *phoenix) die() {
	s := sdk.NewServer(&sdk.Implementation{Name: "phoenix", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	obj := map[string]any{"type": "object"}
	s.AddTool(&sdk.Tool{Name: "slow", Description: "Slow.", InputSchema: obj},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slow answer"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "ping", Description: "Ping.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)})
	p.mu.Lock()
	old := p.cur
	p.cur, p.handler = s, h
	p.mu.Unlock()
	if old != nil {
		for ss := range old.Sessions() {
			_ = ss.Close()
		}
	}
}

func (p *phoenix) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.mu.Lock()
	h := p.handler
	if r.Header.Get("Last-Event-ID") != "" {
		p.resumed++
	}
	p.mu.Unlock()
	if bytes.Contains(body, []byte(`"tools/list"`)) {
		defer func() {
			select {
			case p.listed <- struct{}{}:
			default:
			}
		}()
	}
	h.ServeHTTP(w, r)
}

// TestMCPServerReconnects: a call whose response stream the server drops
// gets its answer on the resumed stream; a server that dies and comes
// back at its address is restarted by the agent (it lists the tools of
// the new server), and the next call reaches it. stderr says each change
// once.
func TestMCPServerReconnects(t *testing.T) {
	t.Parallel()
	p, url := newPhoenix(t)
	hold := make(chan struct{})
	released := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(released)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "slow", Name: "mcp__p__slow", Arguments: `{}`}),
		scripted.ToolCalls(scripted.Call{ID: "ping", Name: "mcp__p__ping", Arguments: `{}`}).HoldAfterEvents(0, hold),
		scripted.Text("done"),
	)
	cfg := e2e.MCPConfig(t, fmt.Sprintf("[mcp.servers.p]\nurl = %q\n", url+"/mcp"))
	back := &lineWatch{want: "MCP server p is running again", seen: make(chan struct{})}
	done := make(chan e2e.Result, 1)
	go func() {
		done <- e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Watch: back, Args: e2e.AgentArgs(srv, "--config", cfg, "--tools", "all", "-p", "go")})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	<-p.listed // the agent's first listing
	// The second request, after the slow call, waits for the release:
	// meanwhile the server dies and the agent lists the new one's tools.
	if err := srv.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	p.die()
	select { // said once its tools are offered again
	case <-back.seen:
	case <-ctx.Done():
		t.Fatal("the agent never reconnected to the server that came back")
	}
	released()
	res := <-done
	if res.Code != 0 || res.Stdout != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	reqs := srv.Requests()
	if got := e2e.ToolResults(reqs[1])["slow"]; got != "slow answer" {
		t.Errorf("the call across the dropped stream: %q", got)
	}
	if got := e2e.ToolResults(reqs[2])["ping"]; got != "pong" {
		t.Errorf("the call after the restart: %q; stderr %q", got, res.Stderr)
	}
	p.mu.Lock()
	resumed := p.resumed
	p.mu.Unlock()
	if resumed == 0 {
		t.Errorf("the agent never resumed a stream with Last-Event-ID")
	}
	for _, want := range []string{"agent: MCP server p stopped: ", "agent: MCP server p is running again"} {
		if n := strings.Count(res.Stderr, want); n != 1 {
			t.Errorf("stderr says %q %d times, want once: %q", want, n, res.Stderr)
		}
	}
}

// lineWatch closes seen once the text written to it holds want.
type lineWatch struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (w *lineWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(b), nil
}
