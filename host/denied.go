package host

import (
	"context"
	"strings"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
)

// deniedTool is a tool that a deny rule names. Whatever the tool's
// definition says (an MCP server's read-only annotation would let its
// calls skip the approval step, and with it the rules), its calls go to
// approval, where the policy denies them; and should a call ever reach Run,
// Run refuses it too. Deny rules so hold for every call in every mode.
type deniedTool struct {
	tools.Tool
	rule string
}

var _ tools.Tool = deniedTool{}

// denyByRules wraps each tool of ts that a pattern of deny names (see
// matchTool) in a deniedTool; the others are returned as they are.
func denyByRules(ts []tools.Tool, deny []string) []tools.Tool {
	if len(deny) == 0 {
		return ts
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if pat, ok := matchTool(deny, t.Definition().Name); ok {
			out[i] = deniedTool{Tool: t, rule: pat}
		}
	}
	return out
}

// Definition is the tool's, never read-only.
func (d deniedTool) Definition() tools.Definition {
	def := d.Tool.Definition()
	def.ReadOnly = false
	if !def.Effects.Unknown() {
		def.Effects |= tools.EffectsUnknown
	}
	return def
}

// Run refuses the call.
func (d deniedTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.Errorf("%s was not run: the rule %q in the user's config denies it. Do not try to get around the rule; find another way or ask the user.", d.Tool.Definition().Name, d.rule), nil
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
