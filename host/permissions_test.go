package host

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

func TestPolicy(t *testing.T) {
	set, err := rules.Compile([]string{"ls", "git status"}, []string{"rm", "git push"})
	if err != nil {
		t.Fatal(err)
	}
	boxed := sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}
	none := sandbox.Status{Mode: sandbox.WorkspaceWrite, Reason: "no Landlock"}
	off := sandbox.Status{Mode: sandbox.Off}
	readOnly := sandbox.Status{Mode: sandbox.ReadOnly, Enforced: true}
	cmd := func(c string) string { return `{"command":` + strconv.Quote(c) + `}` }
	tests := []struct {
		name      string
		p         policy
		tool, arg string
		want      verdict
		why       string // a fragment of the recorded decision
	}{
		{"ask asks about edits", policy{mode: ModeAsk, sandbox: boxed}, "edit_file", "{}", askPerson, ""},
		{"ask asks about commands", policy{mode: ModeAsk, sandbox: boxed}, "bash", cmd("make"), askPerson, ""},
		{"an allow rule runs in the sandbox", policy{mode: ModeAsk, rules: set, sandbox: boxed}, "bash", cmd("ls -la && git status"), allow, "sandbox"},
		{"an allow rule without a sandbox asks", policy{mode: ModeAsk, rules: set, sandbox: none}, "bash", cmd("ls"), askPerson, ""},
		{"an allow rule with the sandbox off", policy{mode: ModeAsk, rules: set, sandbox: off}, "bash", cmd("ls"), allow, "unconfined"},
		{"--allow-bash without a sandbox asks", policy{mode: ModeAsk, allowBash: true, sandbox: none}, "bash", cmd("make"), askPerson, ""},
		{"a line that may hide a denied command is asked about in auto", policy{mode: ModeAuto, rules: set, sandbox: boxed}, "bash", cmd("git -C . push"), askPerson, ""},
		{"and in yolo", policy{mode: ModeYolo, rules: set, sandbox: off}, "bash", cmd("c=rm; $c -rf src"), askPerson, ""},
		{"unresolved lines run in auto without deny rules", policy{mode: ModeAuto, sandbox: boxed}, "bash", cmd("$CC -o x x.c"), allow, "sandbox"},
		{"a smuggled command is asked about", policy{mode: ModeAsk, rules: set, sandbox: boxed}, "bash", cmd("ls && make"), askPerson, ""},
		{"deny wins over allow", policy{mode: ModeAsk, rules: set, sandbox: boxed}, "bash", cmd("ls && rm -rf x"), deny, `"rm"`},
		{"deny wins in auto", policy{mode: ModeAuto, rules: set, sandbox: boxed}, "bash", cmd("echo $(rm x)"), deny, `"rm"`},
		{"deny wins over --allow-bash", policy{mode: ModeAsk, allowBash: true, rules: set, sandbox: boxed}, "bash", cmd("bash -c 'git push'"), deny, "git push"},
		{"auto runs commands in the sandbox", policy{mode: ModeAuto, rules: set, sandbox: boxed}, "bash", cmd("make"), allow, "sandbox: workspace-write"},
		{"auto without a sandbox asks", policy{mode: ModeAuto, sandbox: none}, "bash", cmd("make"), askPerson, ""},
		{"auto with the sandbox off asks", policy{mode: ModeAuto, sandbox: off}, "bash", cmd("make"), askPerson, ""},
		{"auto edits", policy{mode: ModeAuto, sandbox: boxed}, "write_file", "{}", allow, "auto"},
		{"read-only refuses edits", policy{mode: ModeAuto, sandbox: readOnly}, "edit_file", "{}", deny, "read-only"},
		{"--allow-bash", policy{mode: ModeAsk, allowBash: true, sandbox: boxed}, "bash", cmd("make"), allow, "--allow-bash; sandbox"},
		{"--allow-bash keeps asking about edits", policy{mode: ModeAsk, allowBash: true, sandbox: boxed}, "write_file", "{}", askPerson, ""},
		{"yolo", policy{mode: ModeYolo, rules: set, sandbox: off}, "bash", cmd("make"), allow, "yolo"},
		{"deny rules hold in yolo", policy{mode: ModeYolo, rules: set, sandbox: off}, "bash", cmd("ls; rm -rf x"), deny, `"rm"`},
		{"yolo edits", policy{mode: ModeYolo, sandbox: off}, "edit_file", "{}", allow, "yolo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.p.judge(tt.tool, tt.arg)
			if r.verdict != tt.want || !strings.Contains(r.why, tt.why) {
				t.Errorf("judge(%s %s) = %v %q, want %v with %q", tt.tool, tt.arg, r.verdict, r.why, tt.want, tt.why)
			}
			if r.verdict == deny && r.reason == "" {
				t.Error("a denial without a reason for the model")
			}
		})
	}
}

func TestHeadlessDeniesWhatItWouldAsk(t *testing.T) {
	approve := headlessApproval(policy{mode: ModeAuto, sandbox: sandbox.Status{Mode: sandbox.WorkspaceWrite, Reason: "no Landlock"}})
	d := approve(context.Background(), loop.Approval{Call: providers.ToolCall{Name: "bash", Arguments: `{"command":"make"}`}, Def: builtinDef("bash")})
	if d.Allow || !strings.Contains(d.Reason, "no Landlock") || !strings.Contains(d.Why, "nobody to ask") {
		t.Errorf("headless, no sandbox: %+v", d)
	}
}

func TestPermissionModeDefaults(t *testing.T) {
	for _, tt := range []struct {
		opts        Flags
		interactive bool
		want        string
	}{
		{Flags{}, true, ModeAsk},
		{Flags{}, false, ModeAuto},
		{Flags{Yolo: true}, true, ModeYolo},
		{Flags{PermissionMode: "auto"}, true, ModeAuto},
		{Flags{PermissionMode: "ask"}, false, ModeAsk},
	} {
		if got, err := PermissionMode(&tt.opts, tt.interactive); err != nil || got != tt.want {
			t.Errorf("%+v interactive=%v: %q, %v; want %q", tt.opts, tt.interactive, got, err, tt.want)
		}
	}
	if _, err := PermissionMode(&Flags{PermissionMode: "sometimes"}, false); !errors.As(err, new(UsageError)) {
		t.Errorf("an unknown mode should be a usage error, got %v", err)
	}
}

// TestDecideByEffects: tools of unknown effects (an MCP server's) are
// asked about in ask mode and run in auto; tool rules name them with
// globs, and deny rules hold in every mode.
func TestDecideByEffects(t *testing.T) {
	unknown := tools.Definition{Name: "mcp__github__create_issue", Effects: tools.EffectsUnknown}
	edit := tools.Definition{Name: "mcp__fs__write", Effects: tools.ReadsWorkspace | tools.WritesWorkspace}
	for _, c := range []struct {
		name string
		p    policy
		def  tools.Definition
		want verdict
	}{
		{"ask asks", policy{mode: ModeAsk}, unknown, askPerson},
		{"auto runs", policy{mode: ModeAuto}, unknown, allow},
		{"yolo runs", policy{mode: ModeYolo}, unknown, allow},
		{"allow glob", policy{mode: ModeAsk, toolAllow: []string{"mcp__github__*"}}, unknown, allow},
		{"allow other server", policy{mode: ModeAsk, toolAllow: []string{"mcp__gitlab__*"}}, unknown, askPerson},
		{"deny in yolo", policy{mode: ModeYolo, toolDeny: []string{"mcp__github__create_issue"}}, unknown, deny},
		{"deny beats allow", policy{mode: ModeAuto, toolAllow: []string{"mcp__*"}, toolDeny: []string{"mcp__github__*"}}, unknown, deny},
		{"workspace writes are edits", policy{mode: ModeAuto}, edit, allow},
	} {
		if r := c.p.decide(c.def, "{}"); r.verdict != c.want {
			t.Errorf("%s: verdict %d, want %d (%+v)", c.name, r.verdict, c.want, r)
		}
	}
	cmds, toolRules := splitRules([]string{"git status", "mcp__github__*"})
	if len(cmds) != 1 || len(toolRules) != 1 || toolRules[0] != "mcp__github__*" {
		t.Errorf("splitRules: %v %v", cmds, toolRules)
	}
}
