package cmd

import (
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
)

// A deny rule that names an MCP server's tools also keeps mcp_resource
// from reading that server's resources, in every mode; other servers'
// resources and the list stay readable.
func TestDenyRulesCoverReadingAServersResources(t *testing.T) {
	def := tools.Definition{Name: mcp.ResourceToolName, ReadOnly: true, Effects: tools.ReadsWorkspace}
	for _, c := range []struct {
		name string
		deny []string
		args string
		want verdict
	}{
		{"no rules", nil, `{"server":"github","uri":"repo://x"}`, allow},
		{"every server denied", []string{"mcp__*"}, `{"server":"github","uri":"repo://x"}`, deny},
		{"this server denied", []string{"mcp__github__*"}, `{"server":"github","uri":"repo://x"}`, deny},
		{"another server denied", []string{"mcp__gitlab__*"}, `{"server":"github","uri":"repo://x"}`, allow},
		{"one tool denied", []string{"mcp__github__create_issue"}, `{"server":"github","uri":"repo://x"}`, allow},
		{"no server named", []string{"mcp__github__*"}, `{"uri":"repo://x"}`, deny},
		{"the list", []string{"mcp__github__*"}, `{}`, allow},
	} {
		p := policy{mode: modeYolo, toolDeny: c.deny}
		if r := p.decide(def, c.args); r.verdict != c.want {
			t.Errorf("%s: verdict %d, want %d (%+v)", c.name, r.verdict, c.want, r)
		}
	}
}
