//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agent-dev/agent/tools/shell"
)

// sandboxExec is macOS's sandbox-exec, at the path where the system keeps
// it (never looked up on PATH, which a command could change).
const sandboxExec = "/usr/bin/sandbox-exec"

// darwin confines commands with sandbox-exec and a Seatbelt profile.
type darwin struct {
	p   Policy
	why string
}

func newPlatform(p Policy) platform {
	d := &darwin{p: canonical(p)}
	if _, err := os.Stat(sandboxExec); err != nil {
		d.why = fmt.Sprintf("%s is not available: %v", sandboxExec, err)
	}
	return d
}

// canonical resolves the policy's paths through symlinks, as Seatbelt
// matches real paths (/tmp is /private/tmp).
func canonical(p Policy) Policy {
	real := func(path string) string {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
		return path
	}
	p.Dir = real(p.Dir)
	for _, list := range [][]string{p.TempDirs, p.WritableRoots, p.Protected} {
		for i := range list {
			list[i] = real(list[i])
		}
	}
	return p
}

func (d *darwin) status(bool) Status {
	if d.why != "" {
		return Status{Reason: d.why}
	}
	st := Status{Enforced: true, Mechanism: "sandbox-exec (Seatbelt)"}
	if !d.p.Network {
		st.NetworkBy = "Seatbelt network rules"
	}
	if d.p.Mode == WorkspaceWrite {
		st.ProtectedBy = "Seatbelt deny rules"
	}
	return st
}

func (d *darwin) build(spec shell.Spec) (*exec.Cmd, error) {
	if d.why != "" {
		return shell.BashCommand(spec) // not enforced: the policy asked a person
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("bash is not available on this machine: %v", err)
	}
	sb := SeatbeltFor(d.p)
	args := []string{"-p", sb.Profile}
	for _, kv := range sb.Params {
		args = append(args, "-D", kv)
	}
	cmd := exec.Command(sandboxExec, append(args, "--", bash, "-c", spec.Command)...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	return cmd, nil
}

func (d *darwin) close() error { return nil }

func (d *darwin) usage() boundUsage { return boundUsage{} }
