//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
	"github.com/agent-dev/agent/tools/shell/sandbox/helperbin"
)

// Which program a helper process starts as: the small helper embedded in
// the agent, or the agent's own binary.

// selfExe is the agent's own binary, even when a command has since
// replaced the file at its path (the binary may lie in a writable root: go
// run, ./agent in the repository).
const selfExe = "/proc/self/exe"

// embeddedExe, as linux.exe, is the small helper embedded in the agent.
const embeddedExe = "(embedded)"

// helper is the program to start as the helper: the small helper embedded
// in the agent (helperbin: a C program, which starts in a tenth of a
// millisecond where a Go program takes milliseconds), started from its
// sealed memfd, or the agent's own binary where none is embedded or the
// memfd cannot be made. Chosen at the first call: a run that never runs a
// command makes no memfd.
func (l *linux) helper() string {
	l.exeMu.Lock()
	defer l.exeMu.Unlock()
	if l.exe == "" {
		l.exe = selfExe
		if f, _ := helperbin.File(); f != nil {
			l.exe = embeddedExe
		}
	}
	return l.exe
}

// helperCmd is exe, helper's choice, started as the helper with args
// after helper.Arg and files as its first ExtraFiles (at 3, 4...).
func (l *linux) helperCmd(exe string, args []string, files []*os.File) *exec.Cmd {
	path := exe
	if exe == embeddedExe {
		f, _ := helperbin.File() // made already: helper chose it
		path, files = helperbin.Exec(f, files)
	}
	return &exec.Cmd{Path: path, Args: append([]string{path, helper.Arg}, args...), ExtraFiles: files}
}

// fallBack makes the agent's own binary the helper from now on, when exe,
// the helper so far, cannot be started (a memfd a security module will not
// execute); false when exe was the agent's binary already, or is no longer
// the helper.
func (l *linux) fallBack(exe string) bool {
	l.exeMu.Lock()
	defer l.exeMu.Unlock()
	if exe == selfExe || l.exe != exe {
		return false
	}
	l.exe = selfExe
	return true
}

// starts reports whether exe starts as the helper without namespaces (a
// probe that sets nothing up): whether a probe that could not be started
// failed for the helper or for its namespaces.
func (l *linux) starts(exe string) bool {
	o := helper.Options{RulesetFD: -1, Probe: true}
	cmd := l.helperCmd(exe, o.Args(), nil)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd.Run() == nil
}
