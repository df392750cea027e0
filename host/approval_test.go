package host

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// recordingAsker answers every question with d and keeps them.
type recordingAsker struct {
	d     loop.Decision
	asked []Question
}

func (r *recordingAsker) Ask(_ context.Context, q Question) loop.Decision {
	r.asked = append(r.asked, q)
	return r.d
}

func TestOneApprovalPathPolicyThenAsker(t *testing.T) {
	set, err := rules.Compile(nil, []string{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	boxed := sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}
	readMCP := tools.Definition{Name: "mcp__docs__search", ReadOnly: true, Effects: tools.ReadsWorkspace}
	readFile := tools.Definition{Name: "read_file", ReadOnly: true, Effects: tools.ReadsWorkspace}
	edit := tools.Definition{Name: "edit_file", Effects: tools.ReadsWorkspace | tools.WritesWorkspace}
	bash := tools.Definition{Name: "bash", Effects: tools.RunsCommands}
	tests := []struct {
		name    string
		mode    string
		def     tools.Definition
		args    string
		gate    loop.GateVerdict
		allow   bool
		asked   bool
		whyPart string
	}{
		{"a read-only tool runs without a word", ModeAsk, readFile, `{}`, loop.GatePass, true, false, ""},
		{"a deny rule holds for a tool its server calls read-only", ModeAuto, readMCP, `{}`, loop.GatePass, false, false, "denied by rule"},
		{"and in yolo", ModeYolo, readMCP, `{}`, loop.GatePass, false, false, "denied by rule"},
		{"a gate's ask is asked about a read-only call", ModeAuto, readFile, `{}`, loop.GateAsk, false, true, ""},
		{"a gate's allow needs no question", ModeAsk, edit, `{}`, loop.GateAllow, true, false, "hook"},
		{"a gate's allow runs a command in the sandbox", ModeAsk, bash, `{"command":"make"}`, loop.GateAllow, true, false, "sandbox"},
		{"a gate's allow never beats a deny rule", ModeAsk, bash, `{"command":"rm -rf x"}`, loop.GateAllow, false, false, `"rm"`},
		{"nor a line that may hide a denied command", ModeAsk, bash, `{"command":"c=rm; $c x"}`, loop.GateAllow, false, true, ""},
		{"ask asks about an edit", ModeAsk, edit, `{}`, loop.GatePass, false, true, ""},
		{"auto allows an edit", ModeAuto, edit, `{}`, loop.GatePass, true, false, "auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy{mode: tt.mode, rules: set, sandbox: boxed, toolDeny: []string{"mcp__docs__*"}}
			a := &recordingAsker{d: loop.Decision{Why: "person: no"}}
			req := loop.Approval{Call: providers.ToolCall{ID: "c", Name: tt.def.Name, Arguments: tt.args}, Def: tt.def,
				Gate: tt.gate, GateWhy: "hook: test"}
			d := newApproval(p, func() string { return tt.mode }, a).approve(context.Background(), req)
			if d.Allow != tt.allow || (len(a.asked) == 1) != tt.asked || !strings.Contains(d.Why, tt.whyPart) {
				t.Errorf("decision %+v, asked %d times; want allow %v, asked %v, why containing %q", d, len(a.asked), tt.allow, tt.asked, tt.whyPart)
			}
		})
	}
}

func TestTheAskerAnswersInTheModeOfTheMoment(t *testing.T) {
	mode := ModeAsk
	a := &recordingAsker{d: loop.Decision{Why: "person: no"}}
	edit := tools.Definition{Name: "write_file", Effects: tools.ReadsWorkspace | tools.WritesWorkspace}
	ap := newApproval(policy{sandbox: sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}}, func() string { return mode }, a)
	ap.approve(context.Background(), loop.Approval{Call: providers.ToolCall{Name: "write_file", Arguments: "{}"}, Def: edit})
	if len(a.asked) != 1 {
		t.Fatalf("asked %d times in ask mode", len(a.asked))
	}
	mode = ModeAuto // Shift+Tab while the question waits
	if d, ok := a.asked[0].Recheck(); !ok || !d.Allow {
		t.Errorf("recheck in auto: %+v, %v", d, ok)
	}
}
