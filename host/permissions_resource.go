package host

import (
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/tools/mcp"
)

// judgeResource applies the deny rules that name MCP tools to a call of
// mcp_resource, which reads another server's data under a name of its
// own: a read from server S is judged as the tool
// mcp__S__mcp_resource, so mcp__* and mcp__S__* deny it. A read that
// names no server cannot be judged, and is refused while deny rules name
// MCP tools. ok is false when no rule decides.
func (p policy) judgeResource(arguments string) (r ruling, ok bool) {
	if len(p.toolDeny) == 0 {
		return ruling{}, false
	}
	var a struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	_ = json.Unmarshal([]byte(arguments), &a) // the registry validated them
	if a.Server == "" {
		if a.URI == "" {
			return ruling{}, false // a list of names and URIs only
		}
		return ruling{verdict: deny, why: "denied: no server named while MCP deny rules are set",
			reason: fmt.Sprintf("%s was not run: the user's config denies some MCP tools, so say which server holds the resource (server).", mcp.ResourceToolName)}, true
	}
	name := mcp.Prefix + a.Server + "__" + mcp.ResourceToolName
	pat, denied := matchTool(p.toolDeny, name)
	if !denied {
		return ruling{}, false
	}
	return ruling{verdict: deny, why: fmt.Sprintf("denied by rule %q", pat),
		reason: fmt.Sprintf("Reading %s's resources was not done: the rule %q in the user's config denies that server's tools. Do not try to get around the rule; find another way or ask the user.", a.Server, pat)}, true
}

// resourcesDenied reports whether a deny rule keeps mcp_resource from
// reading server's resources (see judgeResource); the tool's listing then
// leaves them out, so that their names and descriptions do not reach the
// model either.
func (a *agent) resourcesDenied(server string) bool {
	_, denied := matchTool(a.toolDeny, mcp.Prefix+server+"__"+mcp.ResourceToolName)
	return denied
}
