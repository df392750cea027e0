//go:build unix

package host_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools/mcp"
)

// mcpGateFIFO makes the FIFO a gated serveMCP opens before it speaks;
// open lets the next server that waits on it go on.
func mcpGateFIFO(t *testing.T) (path string, open func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.Close()
	}
}

func toolsJSON(t *testing.T, req providers.Request) string {
	t.Helper()
	data, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A server that ran before is offered by its last known tools while it
// starts again: a slow start holds no request, the first request's tools
// are those of the requests after it arrived (the prompt cache keeps its
// prefix), a call of its tool waits for it, and the model is told nothing
// when it arrives with the same tools.
func TestASlowServerDoesNotHoldTheFirstRequest(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fifo, open := mcpGateFIFO(t)
	config := fmt.Sprintf("[mcp.servers.probe]\ncommand = %s\nenv = { %s = \"1\", %s = %s }\nstartup_timeout = \"60s\"\n",
		strconv.Quote(exe), asMCPServer, mcpGate, strconv.Quote(fifo))
	model := fake.New(fake.Text("warm"), fake.ToolCalls(call("e1", "mcp__probe__echo", `{"text":"hi"}`)), fake.Text("done"))
	f := newFixture(t, model, config)

	// The first session ever: its first request waits for the server (no
	// tool list of it is known yet), which keeps its list.
	logWarn := func(w string) { t.Log("warning:", w) }
	first := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: logWarn})
	go open()
	if r := runTurn(t, first, "warm up"); r.done.Reason != loop.StopAnswered {
		t.Fatalf("first session: %s %v", r.done.Reason, r.done.Err)
	}
	first.Close()

	// The next: the server waits for the gate, which opens only once the
	// first request went out without it.
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: logWarn})
	if st := s.MCPStatus()[0]; st.State != mcp.StateStarting {
		t.Fatalf("the gated server is %s, want starting", st.State)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if model.WaitRequests(t.Context(), 2) == nil {
			open()
		}
	}()
	r := runTurn(t, s, "echo hi")
	wg.Wait()
	if r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	if res := r.result(t, "e1"); res.IsError || !strings.Contains(res.Content, "echo: hi") || strings.Contains(res.Content, "mcp-servers") {
		t.Errorf("the call made while the server started answered %q (error %v), want echo: hi and no note", res.Content, res.IsError)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if a, b := toolsJSON(t, reqs[0]), toolsJSON(t, r); a != b || !strings.Contains(a, "mcp__probe__echo") {
			t.Errorf("request %d offers other tools than the first session's, or lacks the server's: %s", i+1, toolNames(r))
		}
	}
}

// .mcp.json's ${VAR:-default} reaches the server expanded; a server that
// needs a variable that is not set is skipped with a warning naming it.
func TestProjectServersExpandDefaults(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	model := fake.New(fake.ToolCalls(call("g1", "mcp__probe__getenv", `{"text":"GREETING"}`)), fake.Text("done"))
	f := newFixture(t, model, "")
	mcpJSON := fmt.Sprintf(`{"mcpServers": {
		"probe": {"command": %q, "env": {%q: "1", "GREETING": "${AGENT_TEST_UNSET_GREETING:-hello world}"}},
		"needy": {"command": %q, "args": ["--token", "${AGENT_TEST_UNSET_TOKEN}"]}}}`, exe, asMCPServer, exe)
	write(t, filepath.Join(f.dir, ".mcp.json"), mcpJSON)
	var mu sync.Mutex
	var warned []string
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{MCP: true},
		Warn: func(w string) { mu.Lock(); warned = append(warned, w); mu.Unlock() }})
	r := runTurn(t, s, "what is GREETING?")
	if res := r.result(t, "g1"); res.Content != "GREETING=hello world" {
		t.Errorf("the server's GREETING is %q, want the default", res.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(warned, func(w string) bool {
		return strings.Contains(w, "needy") && strings.Contains(w, "$AGENT_TEST_UNSET_TOKEN")
	}) {
		t.Errorf("warnings %q, want one naming needy and its missing variable", warned)
	}
}

// OnMCPChange hears a server that started after the session opened (ACP
// then lists its prompts again).
func TestOnMCPChangeHearsALateServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("[mcp.servers.probe]\ncommand = %s\nenv = { %s = \"1\" }\nstartup_timeout = \"60s\"\n", strconv.Quote(exe), asMCPServer)
	f := newFixture(t, fake.New(), config)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, MCP: host.MCPStart{Later: true}})
	heard := make(chan struct{}, 8)
	s.OnMCPChange(func() { heard <- struct{}{} })
	s.StartMCP(t.Context())
	<-heard
	s.WaitMCP(t.Context())
	if st := s.MCPStatus()[0]; st.State != mcp.StateRunning {
		t.Errorf("server %s", st.State)
	}
}

func toolNames(req providers.Request) []string {
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return names
}
