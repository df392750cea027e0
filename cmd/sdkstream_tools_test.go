package cmd

import (
	"slices"
	"testing"

	"github.com/agent-dev/agent/host"
)

// The SDK's tools option reaches agent as --tools=default (the preset) or
// --tools with Claude Code's tool names; both start the run (they failed
// with "unknown tools mode"), the list names the built-in tools to keep
// (host.Rules.Only), and agent's own modes keep their meaning.
func TestSDKToolsOption(t *testing.T) {
	for _, c := range []struct {
		flag, left string
		only       []string
	}{
		{"default", "", nil},
		{"Read,Grep", "", []string{"read_file", "grep"}},
		{"all", "all", nil},
		{"pick", "pick", nil},
		{"", "", nil},
	} {
		o := &Options{Flags: host.Flags{Tools: c.flag}}
		only := sdkToolsOption(o)
		if o.Tools != c.left || !slices.Equal(only, c.only) {
			t.Errorf("--tools %q: Tools %q, only %v; want %q, %v", c.flag, o.Tools, only, c.left, c.only)
		}
	}
}

// An in-process server of the SDK (createSdkMcpServer, type "sdk") in
// --mcp-config is left out with a warning; the run starts (it failed with
// "set either command or url") and the other servers stay.
func TestSDKInProcessMCPServersAreLeftOut(t *testing.T) {
	servers, err := claudeMCPConfig(`{"mcpServers":{"calc":{"type":"sdk","name":"calc"},"fs":{"command":"mcp-fs"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := dropInProcess(servers); !slices.Equal(got, []string{"calc"}) || len(servers) != 1 || servers["fs"].Command != "mcp-fs" {
		t.Errorf("dropped %v, left %v", got, servers)
	}
}
