package host

import (
	"testing"

	"github.com/agent-dev/agent/tools"
)

// In plan mode an MCP tool that calls itself read-only (readOnlyHint) runs
// only when a rule allows it or a person says yes: the annotation is the
// server's word (issue 42's eighth). Outside plan mode, and for agent's own
// read-only tools, nothing changes.
func TestPlanModeTakesNoMCPServersWordForReadOnly(t *testing.T) {
	hinted := tools.Definition{Name: "mcp__notes__read", ReadOnly: true, Effects: tools.ReadsWorkspace}
	own := tools.Definition{Name: "read_file", ReadOnly: true, Effects: tools.ReadsWorkspace}
	for _, tc := range []struct {
		name string
		p    policy
		def  tools.Definition
		want verdict
	}{
		{"plan, no rule: asked", policy{mode: ModePlan}, hinted, askPerson},
		{"plan, an allow rule", policy{mode: ModePlan, toolAllow: []string{"mcp__notes__*"}}, hinted, allow},
		{"plan, agent's own read-only tool", policy{mode: ModePlan}, own, allow},
		{"ask mode: as before", policy{mode: ModeAsk}, hinted, allow},
	} {
		if got := tc.p.decide(tc.def, `{}`); got.verdict != tc.want {
			t.Errorf("%s: verdict %d (%s), want %d", tc.name, got.verdict, got.reason, tc.want)
		}
	}
}
