package host_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools/mcp"
)

// An MCP server of the config file (a stdio server: this test binary as
// serveMCP) starts with OpenSession, whose first request waits for it (it
// never ran before: no tool list of it is known), so that its tools are
// offered from the first prompt (headless, ACP, the SDK); with
// FrontEnd.MCP.Later (the interface) it starts only at StartMCP. Either
// way its tool runs when the model calls it, and Close stops it.
func TestMCPServersOfTheConfigStartWithTheSession(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("[mcp.servers.probe]\ncommand = %s\nenv = { %s = \"1\" }\nstartup_timeout = \"60s\"\n", strconv.Quote(exe), asMCPServer)
	const tool = "mcp__probe__echo"
	for _, tc := range []struct {
		name  string
		later bool
	}{
		{"started by OpenSession", false},
		{"started at StartMCP", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.ToolCalls(call("e1", tool, `{"text":"hi"}`)), fake.Text("done"))
			f := newFixture(t, model, config)
			var mu sync.Mutex
			var warned []string
			warn := func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Warn: warn, MCP: host.MCPStart{Later: tc.later}})
			if got := s.MCPServers(); !slices.Equal(got, []string{"probe"}) {
				t.Fatalf("MCP servers %q, want probe", got)
			}

			if tc.later {
				if slices.Contains(s.ToolNames(), tool) || s.MCPStatus()[0].State != mcp.StateStarting {
					t.Fatalf("before StartMCP: tools %q, server %s; want it not started", s.ToolNames(), s.MCPStatus()[0].State)
				}
				s.StartMCP(t.Context())
				s.WaitMCP(t.Context())
				if st := s.MCPStatus()[0]; st.State != mcp.StateRunning || !slices.Contains(s.ToolNames(), tool) {
					mu.Lock()
					defer mu.Unlock()
					t.Fatalf("server %s (%s), tools %q; want %s offered (warnings: %q)", st.State, st.Error, s.ToolNames(), tool, warned)
				}
			}
			r := runTurn(t, s, "echo hi")
			if r.done.Reason != loop.StopAnswered {
				t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
			}
			if res := r.result(t, "e1"); res.IsError || !strings.Contains(res.Content, "echo: hi") {
				t.Errorf("the server's tool answered %q (error %v), want echo: hi", res.Content, res.IsError)
			}
			offered := slices.ContainsFunc(model.Requests()[0].Tools, func(d providers.ToolDefinition) bool {
				return strings.Contains(d.Name+" "+d.Description, tool)
			})
			if !offered {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("the first request does not offer %s (server %+v, warnings %q)", tool, s.MCPStatus()[0], warned)
			}
		})
	}
}
