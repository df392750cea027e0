package host

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

func TestPlanModeRunsReadOnlyCommands(t *testing.T) {
	set, err := rules.Compile([]string{"rm", "touch"}, []string{"git log"})
	if err != nil {
		t.Fatal(err)
	}
	boxed := sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}
	p := policy{mode: ModePlan, rules: set, sandbox: boxed, planSandbox: true}
	cmd := func(c string) string { return `{"command":` + strconv.Quote(c) + `}` }
	for _, c := range []string{"ls -la", "cat go.mod | grep module", "git status", "git diff main -- x.go",
		"find . -name '*.go' -not -path './vendor/*'", "grep -rn foo . 2>/dev/null | head"} {
		if r := p.judge("bash", cmd(c)); r.verdict != allow || !strings.Contains(r.why, "read-only") {
			t.Errorf("%q in plan mode: %v %q, want it run in the read-only sandbox", c, r.verdict, r.why)
		}
	}
	// Not read-only, allowed by a user's rule or not, or a write smuggled
	// into a read-only command: the tool error says plan mode is on.
	for _, c := range []string{"touch x", "rm -rf x", "make", "cat x > y", "ls >> y", "find . -delete",
		"find . -exec rm {} +", "git diff --output=f", "git diff --output f", "sed -i s/a/b/ x", "ls | tee y",
		"sort -o y x", "bash -c 'rm x'", "cat $(touch y)", "git checkout -b x"} {
		r := p.judge("bash", cmd(c))
		if r.verdict != deny || !strings.Contains(r.reason, "plan mode is on") {
			t.Errorf("%q in plan mode: %v %q, want refused because plan mode is on", c, r.verdict, r.reason)
		}
	}
	// The user's deny rules still win over the read-only list.
	if r := p.judge("bash", cmd("git log")); r.verdict != deny || !strings.Contains(r.reason, `"git log"`) {
		t.Errorf("a denied read-only command: %v %q", r.verdict, r.reason)
	}
	// Without a read-only sandbox a person approves each read-only command;
	// the rest is refused as before.
	p.planSandbox = false
	if r := p.judge("bash", cmd("ls")); r.verdict != askPerson {
		t.Errorf("ls in plan mode without a read-only sandbox: %v, want a question", r.verdict)
	}
	if r := p.judge("bash", cmd("touch x")); r.verdict != deny {
		t.Errorf("touch in plan mode without a read-only sandbox: %v, want deny", r.verdict)
	}
	// Edits stay refused.
	if r := p.judge("write_file", "{}"); r.verdict != deny || !strings.Contains(r.reason, "plan mode is on") {
		t.Errorf("write_file in plan mode: %v %q", r.verdict, r.reason)
	}
}

// namedTool is a tool that says which one ran.
type namedTool string

func (n namedTool) Definition() tools.Definition { return tools.Definition{Name: "bash"} }
func (n namedTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{Content: string(n)}, nil
}

func TestPlanModeCommandsRunInTheReadOnlySandbox(t *testing.T) {
	plan := &planState{}
	b := modeBash{normal: namedTool("workspace"), readOnly: namedTool("read-only"), plan: plan.active}
	for _, tt := range []struct{ mode, want string }{{ModeAsk, "workspace"}, {ModePlan, "read-only"}, {ModeAuto, "workspace"}} {
		plan.set(tt.mode)
		if res, _ := b.Run(context.Background(), tools.Call{}); res.Content != tt.want {
			t.Errorf("in %s mode bash ran in the %s sandbox, want %s", tt.mode, res.Content, tt.want)
		}
	}
	plan.set(ModePlan)
	b.readOnly = nil // no read-only sandbox here: a person approved the command
	if res, _ := b.Run(context.Background(), tools.Call{}); res.Content != "workspace" {
		t.Errorf("without a read-only sandbox: %s", res.Content)
	}
}
