package cmd

import (
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/picker"
)

// sdkToolsOption takes the SDK's --tools (its tools option: "default",
// the preset, or a comma-separated list of the built-in tools to offer)
// out of o.Tools, where agent's own --tools (pick, swap, all) stays. only
// is the list, nil for agent's tools as they are.
func sdkToolsOption(o *Options) (only []string) {
	if o.Tools == "" {
		return nil
	}
	if _, err := picker.ParseMode(o.Tools); err == nil {
		return nil
	}
	v := o.Tools
	o.Tools = ""
	if v == "default" {
		return nil
	}
	only = []string{}
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			if m, ok := tools.FromClaude(n); ok {
				n = m
			}
			only = append(only, n)
		}
	}
	return only
}

// toolsOutside are the built-in tools of names that only does not list:
// the SDK's tools option leaves them out, so their calls are denied. MCP
// servers' tools are not built in and stay.
func toolsOutside(names, only []string) []string {
	keep := map[string]bool{}
	for _, n := range only {
		keep[n] = true
	}
	var out []string
	for _, n := range names {
		if !keep[n] && !strings.HasPrefix(n, mcp.Prefix) {
			out = append(out, n)
		}
	}
	return out
}

// inProcessMCP is the type of the SDK's in-process MCP servers
// (createSdkMcpServer), which talk through the SDK's own process.
const inProcessMCP = "sdk"

// dropInProcess removes the in-process servers from servers and returns
// their names, sorted.
func dropInProcess(servers map[string]mcpServerConfig) []string {
	var names []string
	for name, c := range servers {
		if c.Transport == inProcessMCP {
			names = append(names, name)
			delete(servers, name)
		}
	}
	slices.Sort(names)
	return names
}
