package mcp

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// A stdio server that prints a banner on stdout before it speaks JSON-RPC
// (as some published servers do) starts: the banner is skipped with one
// warning naming the server, and its tools are offered.
func TestBannerLinesBeforeTheFirstMessageAreSkipped(t *testing.T) {
	var mu sync.Mutex
	var warned []string
	m := NewManager([]Config{stdioServer(t, "banner", serverBanner+"=Weather MCP Server v1.2 running on stdio\n\nConnected to cache\n")},
		Options{Warn: func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }})
	m.Start(t.Context())
	t.Cleanup(func() { m.Close() })
	m.Wait(t.Context())
	if st := m.Status()[0]; st.State != StateRunning || len(st.Tools) != 1 {
		t.Fatalf("server %s (%s), tools %q; want running with its tool", st.State, st.Error, st.Tools)
	}
	res, err := findTool(t, m, "mcp__banner__echo").Run(t.Context(), tools.Call{Args: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || res.IsError || res.Content != "echo: hi" {
		t.Errorf("echo answered %q (error %v)", res.Content, res.IsError)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], "MCP server banner") || !strings.Contains(warned[0], "Weather MCP Server v1.2 running on stdio") {
		t.Errorf("warnings %q, want one naming the server and its first banner line", warned)
	}
}

// bannerReader passes everything from the first JSON-RPC message on as it
// is, skipped lines or not, and keeps a large first message whole.
func TestBannerReader(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("y", 100*1024) + `"}}`
	for _, tc := range []struct {
		name, in, want string
		warned         bool
	}{
		{"no banner", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\nnot json\n", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\nnot json\n", false},
		{"a banner", "Server running\n{\"a\":1}\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n", `{"jsonrpc":"2.0","method":"x"}` + "\n", true},
		{"a batch", "hello\n" + `[{"jsonrpc":"2.0","method":"x"}]` + "\n", `[{"jsonrpc":"2.0","method":"x"}]` + "\n", true},
		{"a long banner", strings.Repeat("=", 200*1024) + "\n" + `{"jsonrpc":"2.0","id":2}` + "\n", `{"jsonrpc":"2.0","id":2}` + "\n", true},
		{"a large first message", big + "\n", big + "\n", false},
		{"only a banner", "Server running\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warned []string
			r := &bannerReader{r: bufio.NewReaderSize(strings.NewReader(tc.in), 64*1024), warn: func(s string) { warned = append(warned, s) }}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("read %.80q, want %.80q", got, tc.want)
			}
			if (len(warned) == 1) != tc.warned || len(warned) > 1 {
				t.Errorf("warned %.80q, want a warning: %v", warned, tc.warned)
			}
		})
	}
}
