package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

func TestAYesWithOtherArgumentsIsDecidedAgainOnThem(t *testing.T) {
	set, err := rules.Compile(nil, []string{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	bash := tools.Definition{Name: "bash", Effects: tools.RunsCommands}
	tests := []struct {
		name, mode, updated string
		allow               bool
		args                string // the arguments the call runs with ("" the model's)
		whyPart             string
	}{
		{"other arguments run once decided", ModeAsk, `{"command":"ls -l"}`, true, `{"command":"ls -l"}`, "host: allowed with changed input"},
		{"a deny rule holds for them", ModeAsk, `{"command":"rm -rf x"}`, false, "", `"rm"`},
		{"in every mode", ModeAuto, `{"command":"ls; rm -rf x"}`, false, "", `"rm"`},
		{"the same arguments written otherwise are the model's", ModeAsk, `{ "command" : "echo hi" }`, true, "", "host: allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy{mode: tt.mode, rules: set, sandbox: sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}}
			a := &recordingAsker{d: loop.Decision{Allow: true, Args: json.RawMessage(tt.updated), Why: "host: allowed with changed input"}}
			req := loop.Approval{Call: providers.ToolCall{ID: "c", Name: "bash", Arguments: `{"command":"echo hi"}`}, Def: bash,
				Gate: loop.GateAsk, GateWhy: "test"}
			d := newApproval(p, func() string { return tt.mode }, a).approve(context.Background(), req)
			if d.Allow != tt.allow || string(d.Args) != tt.args || !strings.Contains(d.Why+d.Reason, tt.whyPart) {
				t.Errorf("decision %+v (args %s); want allow %v with args %q, why containing %q", d, d.Args, tt.allow, tt.args, tt.whyPart)
			}
			if len(a.asked) != 1 {
				t.Errorf("the asker was asked %d times, want once (its yes covers the arguments it wrote)", len(a.asked))
			}
		})
	}
}

func TestAYesWithOtherArgumentsNeverCoversAProtectedPathsWrite(t *testing.T) {
	edit := tools.Definition{Name: "write_file", Effects: tools.ReadsWorkspace | tools.WritesWorkspace}
	a := &recordingAsker{d: loop.Decision{Allow: true, Args: json.RawMessage(`{"path":".git/hooks/pre-commit","content":"x"}`), Why: "host: allowed with changed input"}}
	ap := newApproval(policy{mode: ModeAsk, sandbox: sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}}, func() string { return ModeAsk }, a)
	guard := protect.NewGuard(protect.Paths{})
	ap.guard = guard
	req := loop.Approval{Call: providers.ToolCall{ID: "c", Name: "write_file", Arguments: `{"path":".git/config","content":"x"}`}, Def: edit,
		Preview: &tools.Result{Meta: map[string]any{tools.MetaProtected: "git metadata", tools.MetaPath: ".git/config"}}}
	d := ap.approve(context.Background(), req)
	if d.Allow || !strings.Contains(d.Reason, "protected path") {
		t.Errorf("decision %+v, want a refusal: the yes was to other arguments than the protected write shown", d)
	}
}
