package host

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
		p := policy{mode: ModeYolo, toolDeny: c.deny}
		if r := p.decide(def, c.args); r.verdict != c.want {
			t.Errorf("%s: verdict %d, want %d (%+v)", c.name, r.verdict, c.want, r)
		}
	}
}

// The rules that deny reading a server's resources also hide them from
// mcp_resource's listing; a rule naming one other tool of the server
// hides nothing.
func TestDenyRulesHideAServersResources(t *testing.T) {
	for _, c := range []struct {
		deny []string
		want bool
	}{
		{nil, false},
		{[]string{"mcp__*"}, true},
		{[]string{"mcp__github__*"}, true},
		{[]string{"mcp__gitlab__*"}, false},
		{[]string{"mcp__github__create_issue"}, false},
	} {
		a := &agent{toolDeny: c.deny}
		if got := a.resourcesDenied("github"); got != c.want {
			t.Errorf("deny %v: github's resources hidden %v, want %v", c.deny, got, c.want)
		}
	}
}
