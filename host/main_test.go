package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/sessions"
)

// The test binary plays two other processes when started with one of these
// variables in its environment: a stdio MCP server (see serveMCP) and a
// process that holds a session's lease (see holdLease).
const (
	asMCPServer = "AGENT_HOST_TEST_MCP_SERVER"
	asHolder    = "AGENT_HOST_TEST_HOLD"
	// mcpRecord, beside asMCPServer, names a file where the server writes
	// its arguments and its CLAUDE_PLUGIN_ROOT as it starts.
	mcpRecord = "AGENT_HOST_TEST_MCP_RECORD"
	// mcpGate names a FIFO the MCP server opens before it speaks: it
	// starts once the test opens the other end.
	mcpGate = "AGENT_HOST_TEST_MCP_GATE"
)

// TestMain runs the tests with HOME in a directory of their own, so that
// the person's ~/.claude (hooks, agents, commands) never joins a session
// under test; or, started as one of the helper processes, plays it.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(asMCPServer) != "":
		os.Exit(serveMCP())
	case os.Getenv(asHolder) != "":
		os.Exit(holdLease(os.Getenv(asHolder)))
	}
	home, err := os.MkdirTemp("", "host-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "making a HOME for the tests:", err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// serveMCP is a stdio MCP server with two tools: echo, which answers
// "echo: TEXT", and getenv, which answers the value of the environment
// variable TEXT. With mcpGate set, it speaks only once the test opened
// that FIFO. It ends when its client closes stdin.
func serveMCP() int {
	if rec := os.Getenv(mcpRecord); rec != "" {
		_ = os.WriteFile(rec, []byte(strings.Join(os.Args[1:], " ")+"\n"+os.Getenv("CLAUDE_PLUGIN_ROOT")), 0o644)
	}
	if gate := os.Getenv(mcpGate); gate != "" {
		f, err := os.Open(gate) // blocks until the test opens it for writing
		if err != nil {
			fmt.Fprintln(os.Stderr, "gate:", err)
			return 1
		}
		f.Close()
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "probe", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text.", InputSchema: schema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "getenv", Description: "The value of an environment variable.", InputSchema: schema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text + "=" + os.Getenv(in.Text)}}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "mcp server:", err)
		return 1
	}
	return 0
}

// holdLease takes the lease of a session, as another agent running it
// would: spec is "DB|ID". It prints "held" once it holds it and gives it
// back when stdin closes.
func holdLease(spec string) int {
	db, id, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	st, err := sessions.Open(ctx, db)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	defer st.Close()
	if err := st.Acquire(ctx, id); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := st.Release(ctx, id); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 1
	}
	return 0
}
