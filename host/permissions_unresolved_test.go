package host

import (
	"strconv"
	"testing"

	"github.com/agent-dev/agent/tools/shell/rules"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// HIGH (the README's promise). "Deny rules hold in every mode, yolo
// included", but a deny rule holds only for the commands the checker can
// resolve: what it cannot (`git -C . push` for a "git push" rule, a
// dynamic command name, a wrapper it does not know) comes back Ask, and
// auto (in the sandbox), --allow-bash and yolo (unconfined) turn every Ask
// into allow. The checker itself says "may match deny rule", and the
// command runs without anyone being asked. With a deny rule in force, an
// Ask that could hide a denied command should stay a question (denied
// headless) in every mode.
func TestDenyRulesHoldForUnresolvedCommands(t *testing.T) {
	set, err := rules.Compile(nil, []string{"rm", "git push"})
	if err != nil {
		t.Fatal(err)
	}
	boxed := sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}
	off := sandbox.Status{Mode: sandbox.Off}
	cmd := func(c string) string { return `{"command":` + strconv.Quote(c) + `}` }
	for _, p := range []struct {
		name string
		p    policy
	}{
		{"auto", policy{mode: ModeAuto, rules: set, sandbox: boxed}},
		{"allow-bash", policy{mode: ModeAsk, allowBash: true, rules: set, sandbox: boxed}},
		{"yolo", policy{mode: ModeYolo, rules: set, sandbox: off}},
	} {
		for _, c := range []string{
			"git -C . push origin main",
			"git --no-pager push --force",
			"c=rm; $c -rf src",
			"$(printf rm) -rf src",
			"flock /tmp/l rm -rf src",
		} {
			r := p.p.judge("bash", cmd(c))
			if r.verdict == allow {
				t.Errorf("%s: %q (deny rules rm, git push) = allow %q: the denied command runs without anyone asked", p.name, c, r.why)
			}
		}
	}
}

// MEDIUM. --allow-bash is documented as "run bash commands without asking
// (still in the sandbox, ...)" and the README says that where no sandbox
// can be set up "nothing runs unconfined silently: every command is asked
// about" (auto mode does ask there). With --allow-bash on a machine whose
// sandbox is not enforced (no Landlock), every command runs unconfined
// without a question; the decision merely says "unconfined".
func TestAllowBashWithoutASandboxIsNotSilentlyUnconfined(t *testing.T) {
	none := sandbox.Status{Mode: sandbox.WorkspaceWrite, Reason: "Landlock is not available"}
	p := policy{mode: ModeAsk, allowBash: true, sandbox: none}
	if r := p.judge("bash", `{"command":"make"}`); r.verdict == allow {
		t.Errorf("--allow-bash without an enforced sandbox: allow %q; the flag promises the sandbox", r.why)
	}
}
