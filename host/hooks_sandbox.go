package host

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

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
// and unreadable credentials), with its temporary directory as TMPDIR,
// and a copy of their transcript in copies (see transcriptCopy). Where sb
// confines nothing (off, or not enforced on this machine) they run as
// before; unconfinedHooksNote says so.
func hookConfine(sb *sandbox.Sandbox, s sandbox.Settings, copies *hookCopies) func(hooks.Hook, hooks.ConfineSpec) (hooks.Confined, error) {
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
		return hooks.Confined{Cmd: cmd, Start: sb.Start, Transcript: copies.transcript(spec.Transcript)}, nil
	}
}

// hookCopies is the directory of the transcripts' copies confined hooks
// read, made on first use in the host's temporary directory. It outlives
// the session, as the transcripts do, for what a hook left running reads
// later: its name starts agent-tmp-PID-, which the next session's sandbox
// removes once PID is gone. The commands' own temporary directory would
// not do: on Linux it is a tmpfs only they see.
type hookCopies struct {
	mu  sync.Mutex
	dir string
}

// transcript copies the transcript at path (in the data directory, which
// commands cannot read) for a confined hook's transcript_path, and returns
// the copy's path; "" (the hook keeps path, which it cannot read) when
// there is no path or the copy fails.
func (c *hookCopies) transcript(path string) string {
	if path == "" {
		return ""
	}
	c.mu.Lock()
	if c.dir == "" {
		c.dir, _ = os.MkdirTemp("", fmt.Sprintf("agent-tmp-%d-hooks-", os.Getpid()))
	}
	dir := c.dir
	c.mu.Unlock()
	if dir == "" {
		return ""
	}
	src, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer src.Close()
	f, err := os.CreateTemp(dir, ".copy-*")
	if err != nil {
		return ""
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err == nil {
		err = os.Rename(f.Name(), dst) // hooks of one event copy at once
	}
	if err != nil {
		os.Remove(f.Name())
		return ""
	}
	return dst
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

// hookSandboxLine is agent doctor's line on where the hooks hs of a
// session in dir run: the repository's and plugins' in the sandbox, or
// unconfined and why.
func (h *Host) hookSandboxLine(dir string, hs []hooks.Hook) string {
	s := h.settings.Sandbox
	confined := slices.ContainsFunc(hs, func(hk hooks.Hook) bool { return confinedHook(hk, s) })
	if !confined {
		return "the user's own hooks run as you; a repository's and plugins' hooks run in the sandbox ([sandbox] project_hooks, plugin_hooks)"
	}
	st, err := h.SandboxStatus(dir)
	if err != nil {
		return "repository and plugin hooks: " + err.Error()
	}
	if note := unconfinedHooksNote(hs, s, st); note != "" {
		return "WARNING: " + note
	}
	return fmt.Sprintf("repository and plugin hooks run in the sandbox (%s, network %s); the user's own hooks run as you", st.Mode, onOff(st.Network))
}

// onOff is "on" for true, "off" for false.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
