package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary is a stdio MCP server (see serveStdio) when started with
// asServer in its environment; the other variables shape it.
const (
	asServer = "AGENT_MCP_TEST_STDIO_SERVER"
	// serverBanner is printed on stdout, line by line ("\n" apart),
	// before the server speaks.
	serverBanner = "AGENT_MCP_TEST_BANNER"
	// serverGate names a FIFO the server opens before it speaks: it
	// starts once the test opens the other end.
	serverGate = "AGENT_MCP_TEST_GATE"
	// serverTools are its tools' names, comma-separated (default echo).
	serverTools = "AGENT_MCP_TEST_TOOLS"
)

func TestMain(m *testing.M) {
	if os.Getenv(asServer) != "" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

// serveStdio is a stdio MCP server whose tools each answer "NAME: TEXT".
func serveStdio() int {
	if gate := os.Getenv(serverGate); gate != "" {
		f, err := os.Open(gate) // blocks until the test opens it for writing
		if err != nil {
			fmt.Fprintln(os.Stderr, "gate:", err)
			return 1
		}
		f.Close()
	}
	if b := os.Getenv(serverBanner); b != "" {
		fmt.Print(b + "\n")
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	names := "echo"
	if n := os.Getenv(serverTools); n != "" {
		names = n
	}
	for _, name := range strings.Split(names, ",") {
		s.AddTool(&sdk.Tool{Name: name, Description: "Answer with " + name + ".", InputSchema: schema},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var in struct{ Text string }
				_ = json.Unmarshal(req.Params.Arguments, &in)
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + ": " + in.Text}}}, nil
			})
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "mcp server:", err)
		return 1
	}
	return 0
}

// stdioServer is the config of this test binary as a stdio server named
// name, with the extra environment env ("K=V").
func stdioServer(t *testing.T, name string, env ...string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Name: name, Command: exe, Env: append(append(os.Environ(), asServer+"=1"), env...), Dir: t.TempDir()}
}
