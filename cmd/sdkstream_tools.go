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

// dropInProcess removes the in-process servers from servers and returns
// their names, sorted.
func dropInProcess(servers map[string]mcp.ServerDef) []string {
	var names []string
	for name, c := range servers {
		if c.Transport == mcp.InProcess {
			names = append(names, name)
			delete(servers, name)
		}
	}
	slices.Sort(names)
	return names
}
