//go:build linux

package sandbox

import (
	"os/exec"
	"syscall"

	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// supervised returns cmd started under the helper as a supervisor only,
// unless the helper starts it already (a confined command).
func supervised(cmd *exec.Cmd, spec shell.Spec) *exec.Cmd {
	if len(cmd.Args) > 1 && cmd.Args[1] == helper.Arg {
		return cmd
	}
	// The agent's own binary: the small helper a confined command starts
	// (helperbin) is known to start only once the sandbox's probe ran, and
	// an unconfined sandbox has none.
	const exe = selfExe
	o := helper.Options{RulesetFD: -1, CgroupFD: -1, TmpFD: -1, SuperviseOnly: true, Grace: spec.KillGrace / 2,
		Program: append([]string{cmd.Path}, cmd.Args[1:]...)}
	return &exec.Cmd{
		Path:        exe,
		Args:        append([]string{exe, helper.Arg}, o.Args()...),
		Dir:         cmd.Dir,
		Env:         cmd.Env,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM},
	}
}
