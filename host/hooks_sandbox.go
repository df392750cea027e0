package host

import (
	"fmt"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// confinedHook reports whether h is a hook the sandbox runs: a
// repository's (trusted) or a plugin's command hook, unless the person's
// config sets [sandbox] project_hooks (plugin_hooks) = false. The user's
// own hooks run as the person.
func confinedHook(h hooks.Hook, s sandbox.Settings) bool {
	if h.Type == hooks.TypePrompt {
		return false // no process
	}
	return (h.Project && !s.UnconfinedProjectHooks) || (h.Plugin != "" && !s.UnconfinedPluginHooks)
}

// hookConfine is the hooks' Runner.Confine of a session: the hooks
// confinedHook names run in sb (the session's sandbox: workspace-write, or
// read-only when the person chose it, with the session's network policy
// and unreadable credentials), with its temporary directory as TMPDIR.
// Where sb confines nothing (off, or not enforced on this machine) they
// run as before; unconfinedHooksNote says so.
func hookConfine(sb *sandbox.Sandbox, s sandbox.Settings) func(hooks.Hook, hooks.ConfineSpec) (hooks.Confined, error) {
	return func(h hooks.Hook, spec hooks.ConfineSpec) (hooks.Confined, error) {
		if !confinedHook(h, s) {
			return hooks.Confined{}, nil
		}
		if st := sb.Brief(); st.Mode == sandbox.Off || !st.Enforced {
			return hooks.Confined{}, nil
		}
		env := spec.Env
		if t := sb.TempDir(); t != "" {
			env = append(env[:len(env):len(env)], "TMPDIR="+t)
		}
		cmd, err := sb.Build(shell.Spec{Command: spec.Command, Dir: spec.Dir, Env: env, KillGrace: shell.DefaultKillGrace})
		if err != nil {
			return hooks.Confined{}, err
		}
		return hooks.Confined{Cmd: cmd, Start: sb.Start}, nil
	}
}

// unconfinedHooksNote says, once, that hooks of hs that should run in the
// sandbox run unconfined because st confines nothing (off by the config,
// or not enforced here); "" when none does.
func unconfinedHooksNote(hs []hooks.Hook, s sandbox.Settings, st sandbox.Status) string {
	n := 0
	for _, h := range hs {
		if confinedHook(h, s) {
			n++
		}
	}
	switch {
	case n == 0 || (st.Mode != sandbox.Off && st.Enforced):
		return ""
	case st.Mode == sandbox.Off:
		return fmt.Sprintf("%d repository or plugin hook(s) run unconfined, as you: the sandbox is off", n)
	}
	return fmt.Sprintf("%d repository or plugin hook(s) run unconfined, as you: no sandbox is enforced here (%s; agent doctor says more)", n, st.Reason)
}
