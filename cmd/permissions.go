package cmd

import (
	"context"
	"fmt"

	"github.com/agent-dev/agent/loop"
)

// Permission modes (--permission-mode). Until the OS sandbox lands, bash is
// never let run unasked except by --allow-bash or yolo.
const (
	// modeAsk asks before every bash command and every file change (the
	// interface's default). Headless, where nobody can answer, it denies.
	modeAsk = "ask"
	// modeAuto lets file changes inside the working directory proceed; bash
	// still asks (interface) or is denied (headless) unless --allow-bash.
	// The default of headless runs.
	modeAuto = "auto"
	// modeYolo allows everything without asking (--yolo).
	modeYolo = "yolo"
)

// permissionMode resolves the mode of a run: --yolo, else the flag, else
// the default for the interface (ask) or headless runs (auto).
func permissionMode(o *Options, interactive bool) (string, error) {
	switch {
	case o.Yolo:
		return modeYolo, nil
	case o.PermissionMode == "" && interactive:
		return modeAsk, nil
	case o.PermissionMode == "":
		return modeAuto, nil
	}
	switch o.PermissionMode {
	case modeAsk, modeAuto, modeYolo:
		return o.PermissionMode, nil
	}
	return "", usagef("unknown permission mode %q: use ask, auto or yolo", o.PermissionMode)
}

// verdict is what the policy says of a call that changes the world.
type verdict int

const (
	allow verdict = iota
	askPerson
	deny
)

// judge applies the mode to a call of tool name: file changes and bash
// commands are the tools that change the world.
func judge(mode string, allowBash bool, name string) verdict {
	switch {
	case mode == modeYolo:
		return allow
	case isEdit(name) && mode == modeAuto:
		return allow
	case !isEdit(name) && allowBash:
		return allow
	}
	return askPerson
}

// headlessApproval answers for headless runs, where nobody can be asked:
// what the policy would ask about is denied, with a reason the model reads.
func headlessApproval(mode string, allowBash bool) loop.ApproveFunc {
	return func(_ context.Context, req loop.Approval) loop.Decision {
		if judge(mode, allowBash, req.Def.Name) == allow {
			return loop.Decision{Allow: true}
		}
		if isEdit(req.Def.Name) {
			return loop.Decision{Reason: fmt.Sprintf("%s is not allowed in this headless run (--permission-mode %s): the user can allow file changes with --permission-mode auto.", req.Def.Name, mode)}
		}
		return loop.Decision{Reason: fmt.Sprintf("%s is not allowed in this headless run: the user can allow it by rerunning with --allow-bash (or --yolo). Use list_files, read_file and grep instead.", req.Def.Name)}
	}
}

// isEdit reports whether a tool only changes files inside the working
// directory.
func isEdit(name string) bool { return name == "edit_file" || name == "write_file" }
