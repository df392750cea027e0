package host

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/picker"
)

// stallingListServer is an MCP server over streamable HTTP whose tool
// lists after the first one stall until release is closed; listed is
// signalled when such a list arrives.
func stallingListServer(t *testing.T) (s *sdk.Server, url string, listed <-chan struct{}, release func()) {
	t.Helper()
	s = sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	noop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	s.AddTool(&sdk.Tool{Name: "first", Description: "First.", InputSchema: obj}, noop)
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	gate := make(chan struct{})
	stalled := make(chan struct{}, 1)
	var mu sync.Mutex
	lists := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/list"`)) {
			mu.Lock()
			lists++
			n := lists
			mu.Unlock()
			if n > 1 {
				select {
				case stalled <- struct{}{}:
				default:
				}
				select {
				case <-gate:
				case <-r.Context().Done():
					return
				}
			}
		}
		handler.ServeHTTP(w, r)
	}))
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() { release(); hs.Close() })
	return s, hs.URL, stalled, release
}

// The loop's catalog source never waits in Current (loop.New calls it, and
// the interface builds a loop in its Update for /new and a picked session):
// a tool list an MCP server announced as changed is waited for in Settle,
// with the turn's context, which ends the wait when the turn is cancelled.
func TestSettledCatalogWaitsOnlyInSettle(t *testing.T) {
	s, url, stalled, release := stallingListServer(t)
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{registry: reg, mode: picker.ModePick, catalog: picker.NewLive(picker.New(reg, picker.ModePick)),
		mcpCfgs: []mcp.Config{{Name: "t", URL: url, StartupTimeout: time.Minute}}}
	a.mcp = mcp.NewManager(a.mcpCfgs, mcp.Options{OnChange: a.rebuildCatalog, Warn: func(msg string) { t.Log("warn:", msg) }, Version: Version()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.mcp.Start(ctx)
	t.Cleanup(func() { release(); cancel(); a.closeMCP() })
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	a.mcp.Wait(wctx)
	wcancel()

	// The server announces a new list, whose fetch stalls.
	s.AddTool(&sdk.Tool{Name: "second", Description: "Second.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	select {
	case <-stalled:
	case <-time.After(20 * time.Second):
		t.Fatal("the changed tool list was never fetched")
	}

	src := settledCatalog{a}
	got := make(chan *picker.Catalog, 1)
	go func() { got <- src.Current() }()
	select {
	case c := <-got:
		if c == nil {
			t.Fatal("Current returned nil")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Current waited for a tool list being fetched (it runs in the interface's Update through loop.New)")
	}

	settle, ok := any(src).(interface{ Settle(context.Context) })
	if !ok {
		t.Fatal("settledCatalog has no Settle(ctx): the loop cannot wait with the turn's context")
	}
	tctx, tcancel := context.WithCancel(context.Background())
	settled := make(chan struct{})
	go func() { settle.Settle(tctx); close(settled) }()
	tcancel() // the turn is cancelled while the list is still on its way
	select {
	case <-settled:
	case <-time.After(5 * time.Second):
		t.Fatal("Settle did not return when its context was cancelled")
	}
}
