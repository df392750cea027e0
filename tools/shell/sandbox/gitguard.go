package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Guard is a shell guard for the working directory's git repository: what
// git reads from .git can make it run programs outside the sandbox the next
// time the person runs git (hooks, core.fsmonitor, core.hooksPath, a
// commondir pointing elsewhere). Existing hooks and config are bind-mounted
// read-only, but files that do not exist yet cannot be, so Guard looks at
// .git before a command and the function it returns repairs what the
// command added after it ended (when none of its processes is alive):
//
//   - a commondir or config.worktree file that appeared is removed;
//   - in a repository (or a .git file or link) the command created, hooks
//     other than git's samples are moved to .git/hooks.blocked-by-agent, and
//     a config that names programs is moved to config.blocked-by-agent and
//     replaced by a plain one.
//
// The returned text says what was done ("" when nothing was); the bash tool
// appends it to the result, with a word for the model when the output looks
// like a refusal by the sandbox. Guard returns nil when nothing confines
// commands.
func (s *Sandbox) Guard() func(tools.Result) string {
	st := s.Brief()
	if s.policy.Mode == Off || !st.Enforced {
		return nil
	}
	gitDir := filepath.Join(s.policy.Dir, ".git")
	var before gitState
	if s.policy.Mode == WorkspaceWrite {
		before = lookGit(gitDir)
	}
	return func(res tools.Result) string {
		var notes []string
		if s.policy.Mode == WorkspaceWrite {
			if n := repairGit(gitDir, before); n != "" {
				notes = append(notes, n)
			}
		}
		if n := refusal(res, st); n != "" {
			notes = append(notes, n)
		}
		return strings.Join(notes, "\n")
	}
}

// refusalSigns are what commands print when the sandbox refused them.
var refusalSigns = []string{
	"Read-only file system", "Permission denied", "Operation not permitted",
	"Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
	"Name or service not known", "Connection refused",
}

// refusal explains a failed command whose output looks like a refusal by
// the sandbox, so that the model tells the person instead of trying ways
// around it.
func refusal(res tools.Result, st Status) string {
	if code, _ := res.Meta["exit_code"].(int); code == 0 && !res.IsError {
		return ""
	}
	for _, sign := range refusalSigns {
		if strings.Contains(res.Content, sign) {
			return fmt.Sprintf("agent sandbox (%s): if this failed because the sandbox refused a write outside the working directory or a network connection, do not try to get around it: tell the user, who can add a writable root or allow the network in the config, or approve the command with a less strict --sandbox.", st.Summary())
		}
	}
	return ""
}

// gitState is what Guard remembers of .git before a command.
type gitState struct {
	exists         bool
	commondir      bool
	configWorktree bool
}

func lookGit(gitDir string) gitState {
	_, err := os.Lstat(gitDir)
	return gitState{
		exists:         err == nil,
		commondir:      exists(filepath.Join(gitDir, "commondir")),
		configWorktree: exists(filepath.Join(gitDir, "config.worktree")),
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// dangerousConfig are fragments of git config keys that name programs or
// other files to read (compared in lower case).
var dangerousConfig = []string{
	"hookspath", "fsmonitor", "sshcommand", "editor", "pager", "askpass", "textconv", "external",
	"helper", "program", "include", "filter", "alias", "command", "exec", "worktree", "proxy", "gitproxy",
}

// plainConfig is what `git init` writes.
const plainConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

func repairGit(gitDir string, before gitState) string {
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return ""
	}
	var done []string
	if !before.exists && !fi.IsDir() {
		// A .git file or link made by the command names a repository
		// elsewhere, with hooks and config of the command's choosing.
		blocked := gitDir + ".blocked-by-agent"
		if os.Rename(gitDir, blocked) == nil {
			done = append(done, fmt.Sprintf("%s moved to %s", filepath.Base(gitDir), filepath.Base(blocked)))
		}
		return note(done)
	}
	if !fi.IsDir() {
		return ""
	}
	for _, f := range []struct {
		name string
		had  bool
	}{{"commondir", before.commondir}, {"config.worktree", before.configWorktree}} {
		if p := filepath.Join(gitDir, f.name); !f.had && exists(p) && os.Remove(p) == nil {
			done = append(done, ".git/"+f.name+" removed")
		}
	}
	if !before.exists {
		done = append(done, disableHooks(gitDir)...)
		done = append(done, plainConfigOf(gitDir)...)
	}
	return note(done)
}

// disableHooks moves every hook but git's samples out of .git/hooks.
func disableHooks(gitDir string) []string {
	hooks := filepath.Join(gitDir, "hooks")
	ents, err := os.ReadDir(hooks)
	if err != nil {
		return nil
	}
	var done []string
	blocked := filepath.Join(gitDir, "hooks.blocked-by-agent")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sample") {
			continue
		}
		if err := os.MkdirAll(blocked, 0o755); err != nil {
			return done
		}
		if os.Rename(filepath.Join(hooks, e.Name()), filepath.Join(blocked, e.Name())) == nil {
			done = append(done, ".git/hooks/"+e.Name()+" moved to .git/hooks.blocked-by-agent/")
		}
	}
	return done
}

// plainConfigOf replaces a config that names programs with a plain one.
func plainConfigOf(gitDir string) []string {
	path := filepath.Join(gitDir, "config")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	lower := bytes.ToLower(b)
	dangerous := err != nil
	for _, d := range dangerousConfig {
		dangerous = dangerous || bytes.Contains(lower, []byte(d))
	}
	if !dangerous {
		return nil
	}
	if os.Rename(path, path+".blocked-by-agent") != nil || os.WriteFile(path, []byte(plainConfig), 0o644) != nil {
		return nil
	}
	return []string{".git/config moved to .git/config.blocked-by-agent and replaced by a plain one"}
}

func note(done []string) string {
	if len(done) == 0 {
		return ""
	}
	return "agent sandbox: the command changed what git would run outside the sandbox; undone: " + strings.Join(done, "; ") +
		". Do not try this again; tell the user if a git hook or setting is needed."
}
