package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// testServer is an in-process MCP server over streamable HTTP with an
// echo tool, a read-only tool, a tool that never answers and a tool that
// fails.
func testServer(t *testing.T) (*sdk.Server, *httptest.Server, *headerLog) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&sdk.Tool{Name: "echo-text", Description: "Echo the text.\n\nLonger description.", InputSchema: obj},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "peek", Description: "Peek.", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x\n", MaxResultBytes)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers.", InputSchema: obj},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select { // a server that ignores cancellation still ends, so the test can close
			case <-ctx.Done():
			case <-time.After(3 * time.Second):
			}
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Fails.", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such thing"}}}, nil
		})
	h := &headerLog{}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r.Header.Get("Authorization"))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return s, hs, h
}

type headerLog struct {
	mu  sync.Mutex
	all []string
}

func (h *headerLog) add(v string) { h.mu.Lock(); h.all = append(h.all, v); h.mu.Unlock() }

func startManager(t *testing.T, cfgs []Config, changed chan<- struct{}) *Manager {
	t.Helper()
	m := NewManager(cfgs, Options{OnChange: func() {
		if changed != nil {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}, Warn: func(msg string) { t.Log("warn:", msg) }})
	ctx, cancel := context.WithCancel(context.Background())
	m.Start(ctx)
	t.Cleanup(func() { cancel(); m.Close() })
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	m.Wait(wctx)
	return m
}

func findTool(t *testing.T, m *Manager, name string) tools.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Definition().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %v", name, m.Status())
	return nil
}

func TestManagerHTTP(t *testing.T) {
	_, hs, hl := testServer(t)
	m := startManager(t, []Config{{Name: "t.s", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer x"}}}, nil)
	st := m.Status()
	if len(st) != 1 || st[0].State != StateRunning {
		t.Fatalf("status %+v", st)
	}
	want := []string{"mcp__t_s__echo-text", "mcp__t_s__fail", "mcp__t_s__hang", "mcp__t_s__peek"}
	if strings.Join(st[0].Tools, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", st[0].Tools, want)
	}
	if hl.all[0] != "Bearer x" {
		t.Errorf("header %q", hl.all[0])
	}
	ctx := context.Background()

	echo := findTool(t, m, "mcp__t_s__echo-text")
	if d := echo.Definition(); d.ReadOnly || !d.Effects.Unknown() || d.Brief() != "Echo the text." {
		t.Errorf("echo definition %+v", d)
	}
	res, err := echo.Run(ctx, tools.Call{Args: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content, "echo: hi") || !strings.Contains(res.Content, "[image image/png, 5 bytes, not shown]") {
		t.Errorf("echo: %+v %v", res, err)
	}

	peek := findTool(t, m, "mcp__t_s__peek")
	if d := peek.Definition(); !d.ReadOnly || d.Effects.Unknown() {
		t.Errorf("peek definition %+v", d)
	}
	res, _ = peek.Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if len(res.Content) > MaxResultBytes+200 || !strings.Contains(res.Content, "cut from the end") {
		t.Errorf("peek not capped: %d bytes, tail %q", len(res.Content), res.Content[max(len(res.Content)-80, 0):])
	}

	res, err = findTool(t, m, "mcp__t_s__fail").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || !res.IsError || res.Content != "no such thing" {
		t.Errorf("fail: %+v %v", res, err)
	}

	// A call's timeout is the server's: a second manager of the same
	// server gives up after a second, where the first (60 s, the default)
	// leaves the other calls all the time a busy machine needs.
	short := startManager(t, []Config{{Name: "t.s", URL: hs.URL, Timeout: time.Second}}, nil)
	start := time.Now()
	res, err = findTool(t, short, "mcp__t_s__hang").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "did not answer") || time.Since(start) > 30*time.Second {
		t.Errorf("hang: %+v %v after %s", res, err, time.Since(start))
	}

	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := findTool(t, m, "mcp__t_s__hang").Run(cctx, tools.Call{Args: json.RawMessage(`{}`)}); err == nil {
		t.Errorf("a cancelled call returned no error")
	}
}

func TestListChanged(t *testing.T) {
	s, hs, _ := testServer(t)
	changed := make(chan struct{}, 1)
	m := startManager(t, []Config{{Name: "t", URL: hs.URL}}, changed)
	<-changed // started
	s.RemoveTools("hang")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change after list_changed")
	}
	for _, n := range m.Status()[0].Tools {
		if n == "mcp__t__hang" {
			t.Errorf("hang still listed: %v", m.Status()[0].Tools)
		}
	}
}

func TestFailedAndSkipped(t *testing.T) {
	m := startManager(t, []Config{
		{Name: "missing", Command: "/nonexistent/server"},
		{Name: "off", Command: "x", Disabled: true},
		{Name: "proj", Command: "x", Skipped: "project server not trusted"},
		{Name: "silent", Command: "sleep", Args: []string{"30"}, StartupTimeout: 300 * time.Millisecond},
	}, nil)
	st := m.Status()
	want := []State{StateFailed, StateDisabled, StateSkipped, StateFailed}
	for i, s := range st {
		if s.State != want[i] {
			t.Errorf("%s: state %s, want %s (%s)", s.Name, s.State, want[i], s.Error)
		}
	}
	if !strings.Contains(st[3].Error, "did not start within") {
		t.Errorf("silent: %q", st[3].Error)
	}
}

func TestToolName(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"every thing", "get-sum", "mcp__every_thing__get-sum"},
		{"s", "a.b/c", "mcp__s__a_b_c"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := ToolName("server", strings.Repeat("x", 100))
	long2 := ToolName("server", strings.Repeat("x", 99)+"y")
	if len(long) != MaxNameLen || long == long2 {
		t.Errorf("long names %q %q", long, long2)
	}
	taken := map[string]bool{"mcp__s__a_b": true}
	if n := uniqueName("s", "a.b", func(n string) bool { return taken[n] }); n == "mcp__s__a_b" || len(n) > MaxNameLen {
		t.Errorf("collision gave %q", n)
	}
}

// TestInvalidSchemaSkipped: a tool whose input schema does not compile is
// left out with one warning; the server and its other tools go on.
func TestInvalidSchemaSkipped(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "fine"}}}, nil
	}
	s.AddTool(&sdk.Tool{Name: "good", Description: "Good.", InputSchema: map[string]any{"type": "object"}}, ok)
	s.AddTool(&sdk.Tool{Name: "broken", Description: "Broken.", InputSchema: json.RawMessage(
		`{"type": "object", "properties": {"n": {"type": "integer", "minimum": "not a number"}}}`)}, ok)
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(handler)
	t.Cleanup(hs.Close)

	var mu sync.Mutex
	var warnings []string
	changed := make(chan struct{}, 4)
	m := NewManager([]Config{{Name: "t", URL: hs.URL}}, Options{Warn: func(msg string) {
		mu.Lock()
		warnings = append(warnings, msg)
		mu.Unlock()
	}, OnChange: func() { changed <- struct{}{} }})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m.Start(ctx)
	defer m.Close()
	m.Wait(ctx)

	st := m.Status()[0]
	if st.State != StateRunning || strings.Join(st.Tools, ",") != "mcp__t__good" {
		t.Fatalf("status %+v, want running with only good", st)
	}
	res, err := findTool(t, m, "mcp__t__good").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil || res.Content != "fine" {
		t.Errorf("good: %+v %v", res, err)
	}
	// The warning is sent from its own goroutine.
	for ctx.Err() == nil {
		mu.Lock()
		n := len(warnings)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A list_changed lists the tools again: broken is not warned about
	// twice.
	<-changed // started
	s.AddTool(&sdk.Tool{Name: "new", Description: "New.", InputSchema: map[string]any{"type": "object"}}, ok)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no change after list_changed")
	}
	if got := strings.Join(m.Status()[0].Tools, ","); got != "mcp__t__good,mcp__t__new" {
		t.Errorf("tools after the change: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "MCP server t: tool broken skipped") {
		t.Errorf("warnings %q, want one about broken", warnings)
	}
}
