package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/gitfmt"
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
//   - a commondir or config.worktree file that appeared is removed, in .git
//     or in the git directory a .git file names when that is writable;
//   - a .git file or link the command created, a .git it rewrote or whose
//     type it changed (file to directory or back) is moved aside, and a
//     .git file that was there is put back (see repairDotGit);
//   - hooks or config that are symlinks (they can point where commands
//     may write) are moved aside;
//   - in a repository the command created, and for a config it created,
//     hooks other than git's samples are moved to hooks.blocked-by-agent,
//     and a config with keys beyond a short list of safe ones is moved to
//     config.blocked-by-agent and replaced by a plain one;
//   - the same is done for every nested repository or submodule (gitlink of
//     the index) that the command registered, or whose git directory,
//     config or hooks it changed, since the person's `git status` runs git
//     inside them; others, the person's own, are left alone. The gitlinks
//     are listed (git ls-files) only when the index changed;
//   - worktrees/*/commondir and gitdir files, created or changed, that no
//     longer name this repository are moved aside, and submodules' git
//     directories under modules/ whose hooks or config changed are
//     neutralised (repairWorktrees, repairModules);
//   - every .git under the working directory and the writable roots that
//     the command created or changed, tracked or not, is neutralised the
//     same way, or moved aside when it names a git directory outside the
//     writable roots (repairNested).
//
// What "changed" means is a change time at or after Guard's call, read
// from the clock change times come from (changeClock), so nothing waits
// before the command starts. The function also says which of the
// sandbox's bounds a command reached (processes, temporary directory).
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
	var before gitState
	if s.policy.Mode == WorkspaceWrite {
		before = s.lookGit()
	}
	used := s.impl.usage()
	return func(res tools.Result) string {
		var notes []string
		if n := boundNote(res, used, s.impl.usage(), s.policy.sessionTemp); n != "" {
			notes = append(notes, n)
		}
		if s.policy.Mode == WorkspaceWrite {
			if n := s.repairGit(before); n != "" {
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
	if code, _ := res.Meta[tools.MetaExitCode].(int); code == 0 && !res.IsError {
		return ""
	}
	content := strings.ToLower(res.Content) // Go says "read-only file system", the C library "Read-only file system"
	for _, sign := range refusalSigns {
		if strings.Contains(content, strings.ToLower(sign)) {
			return fmt.Sprintf("agent sandbox (%s): if this failed because the sandbox refused a write outside the working directory or a network connection, do not try to get around it: tell the user, who can add a writable root ([sandbox] writable_roots in the config, e.g. a tool's cache such as ~/.cache/go-build) or allow the network, or approve the command with a less strict --sandbox.", st.Summary())
		}
	}
	return ""
}

// gitState is what Guard remembers of the working directory's git
// metadata before a command.
type gitState struct {
	// dotGit is what Dir/.git was, and content its content when a file.
	dotGit  entryKind
	content []byte
	// gitDir is the real git directory then ("" for none), common its
	// common directory; exists, config, commondir and configWorktree are
	// about gitDir.
	gitDir, common string
	exists         bool
	config         bool
	commondir      bool
	configWorktree bool
	index          fileStamp
	// links are the gitlinks (nested repositories, submodules) of the
	// index, listed when listed is set; start is when the command began.
	links  map[string]bool
	listed bool
	start  time.Time
}

// fileStamp tells whether a file changed: its size, modification time and
// status-change time (which no command can set back, unlike the
// modification time).
type fileStamp struct {
	size       int64
	mod, ctime time.Time
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{size: -1}
	}
	return fileStamp{fi.Size(), fi.ModTime(), changeTime(fi)}
}

func (s *Sandbox) lookGit() gitState {
	dotGit := filepath.Join(s.policy.Dir, ".git")
	st := gitState{dotGit: kindOf(dotGit), start: changeClock()}
	switch st.dotGit {
	case entryDir:
		st.gitDir = dotGit
	case entryFile:
		st.content, _ = os.ReadFile(dotGit)
		st.gitDir = gitDirOf(dotGit, st.content)
	}
	if st.gitDir == "" {
		return st
	}
	gitDir := st.gitDir
	st.common = commonDirOf(gitDir)
	st.exists = kindOf(gitDir) == entryDir
	st.config = exists(filepath.Join(gitDir, "config"))
	st.commondir = exists(filepath.Join(gitDir, "commondir"))
	st.configWorktree = exists(filepath.Join(gitDir, "config.worktree"))
	if st.dotGit == entryDir {
		st.index = stampOf(filepath.Join(gitDir, "index"))
		if st.index.size >= 0 {
			st.links, st.listed = s.links.get(s.policy.Dir, st.index), true
		}
	}
	return st
}

// gitlinkCache holds the gitlinks of an index as of its stamp, so that git
// runs only when the index changed.
type gitlinkCache struct {
	mu    sync.Mutex
	stamp fileStamp
	links map[string]bool
}

func (c *gitlinkCache) get(work string, stamp fileStamp) map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.links == nil || c.stamp != stamp {
		c.links, c.stamp = listGitlinks(work), stamp
	}
	return c.links
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// safeConfigKeys are the git config keys a repository the command made may
// keep: what `git init` and `git clone` write, user identity, remotes and
// branches by URL, submodules by URL. Any other key (there are dozens that
// name programs: core.fsmonitor, core.hooksPath, remote.*.uploadpack,
// merge.*.driver, ...) gets the config replaced. Section and key names
// compare in lower case; a subsection is written as "*".
var safeConfigKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.worktree": true,
	"remote.*.url": true, "remote.*.fetch": true, "remote.*.pushurl": true,
	"branch.*.remote": true, "branch.*.merge": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"submodule.*.url": true, "submodule.*.active": true, "extensions.objectformat": true,
}

// configIsPlain reports whether a git config holds only safeConfigKeys and
// nothing it cannot read (continuation lines, includes, odd syntax).
func configIsPlain(text []byte) bool {
	section := ""
	for _, raw := range strings.Split(string(text), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			return false
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), "#") {
				return false
			}
			head := strings.TrimSpace(line[1:end])
			name, sub, hasSub := strings.Cut(head, " ")
			if !hasSub {
				name, sub, hasSub = strings.Cut(head, ".")
			}
			section = strings.ToLower(name)
			if hasSub && strings.TrimSpace(sub) != "" {
				section += ".*"
			}
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if section == "" || !safeConfigKeys[section+"."+key] {
			return false
		}
	}
	return true
}

// plainConfig is what `git init` writes.
const plainConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

// repairGit undoes what a command did to the working directory's git
// metadata and to every repository under the writable roots, given what
// was there before it (see Guard), and says what it undid.
func (s *Sandbox) repairGit(before gitState) string {
	done := s.repairDotGit(before)
	gitDir := filepath.Join(s.policy.Dir, ".git")
	if fi, err := os.Lstat(gitDir); err == nil && fi.IsDir() {
		done = append(done, s.repairPlainGit(gitDir, before)...)
	} else if before.dotGit == entryFile && kindOf(gitDir) == entryFile && before.gitDir != "" {
		// A linked worktree or a submodule whose git directory a command
		// may write: the same files as in .git appear there. Resolved
		// first: the guard runs unconfined.
		if real, err := filepath.EvalSymlinks(before.gitDir); err == nil && s.policy.rootOf(real) != "" {
			done = append(done, appeared(real, "git directory", before)...)
			done = append(done, guardRepo(real, "git directory", false, !before.config)...)
		}
	}
	common := s.policy.git.common
	if common == "" && kindOf(filepath.Join(gitDir, "HEAD")) == entryFile {
		common = gitDir // a repository the command made
	}
	if real, err := filepath.EvalSymlinks(common); common != "" && err == nil && s.policy.rootOf(real) != "" {
		done = append(done, s.repairWorktrees(real, before.start)...)
		done = append(done, s.repairModules(real, before.start)...)
	}
	nested, conf := s.repairNested(before.start)
	done = append(done, nested...)
	if len(conf) == 0 {
		return note(done)
	}
	n := confNote(conf)
	if len(done) > 0 {
		n = note(done) + "\n" + n
	}
	return n
}

// confNote says what repairProjectConfig moved aside.
func confNote(moved []string) string {
	return "agent sandbox: the command created or changed the project's agent configuration (a .claude or .agent directory, whose hooks run as the user outside the sandbox when a session starts there); moved aside until the user looks at it: " +
		strings.Join(moved, "; ") + ". Do not try this again; tell the user what configuration you wanted and why."
}

// repairPlainGit looks after a .git directory: files that appeared, the
// hooks and config of a repository the command made, the gitlinks.
func (s *Sandbox) repairPlainGit(gitDir string, before gitState) []string {
	fresh := before.dotGit != entryDir
	var done []string
	if !fresh {
		done = appeared(gitDir, ".git", before)
	}
	done = append(done, guardRepo(gitDir, ".git", fresh, fresh || !before.config)...)
	if now := stampOf(filepath.Join(gitDir, "index")); !fresh && now.size >= 0 && (before.listed || now != before.index) {
		done = append(done, s.guardGitlinks(filepath.Dir(gitDir), before)...)
	}
	return done
}

// appeared removes a commondir or config.worktree file that appeared in a
// git directory during the command: either points git at settings of the
// command's choosing.
func appeared(gitDir, name string, before gitState) []string {
	var done []string
	for _, f := range []struct {
		name string
		had  bool
	}{{"commondir", before.commondir}, {"config.worktree", before.configWorktree}} {
		if p := filepath.Join(gitDir, f.name); !f.had && exists(p) && os.Remove(p) == nil {
			done = append(done, name+"/"+f.name+" removed")
		}
	}
	return done
}

// guardRepo neutralises a repository's hooks and config: links always (a
// link can point where commands may write), hooks other than samples when
// hooks is set, a config with keys beyond safeConfigKeys when config is set.
// name is the git directory as the note shows it.
func guardRepo(gitDir, name string, hooks, config bool) []string {
	var done []string
	if p := filepath.Join(gitDir, "hooks"); isLink(p) {
		if os.Rename(p, p+".blocked-by-agent") == nil && os.Mkdir(p, 0o755) == nil {
			done = append(done, name+"/hooks, a symlink, moved to "+name+"/hooks.blocked-by-agent")
		}
	} else if hooks {
		done = append(done, disableHooks(gitDir, name)...)
	}
	if p := filepath.Join(gitDir, "config"); isLink(p) || config {
		done = append(done, plainConfigOf(gitDir, name)...)
	}
	return done
}

// listGitlinks lists the gitlinks (mode 160000) of work's index: nested
// repositories and submodules, by path. The index is read in process
// (gitfmt.ReadEntries; a session's first command waited for a git process
// here); git lists an index it does not read (a split index, a sparse
// one), with the programs it could be told to run turned off; the
// top-level config is read-only to commands.
func listGitlinks(work string) map[string]bool {
	if ents, err := gitfmt.ReadEntries(filepath.Join(work, ".git", "index")); err == nil {
		links := map[string]bool{}
		for _, e := range ents {
			if e.Mode == gitfmt.ModeGitlink {
				links[e.Path] = true
			}
		}
		return links
	}
	cmd := exec.Command("git", "-C", work, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "ls-files", "-s", "-z")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	links := map[string]bool{}
	if err != nil {
		return links
	}
	for _, entry := range strings.Split(string(out), "\x00") {
		if meta, path, ok := strings.Cut(entry, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
			links[path] = true
		}
	}
	return links
}

// guardGitlinks neutralises the nested repositories and submodules of the
// index that the command registered or changed: the person's `git status`
// runs git inside each of them, with their hooks and config. A gitlink is
// new when it was not listed before the command (or nothing was listed);
// changed when its git directory, config, hooks directory or a hook has a
// status-change time after the command began (which no command can set
// back). Only git directories inside a writable root are touched: the
// command could not have changed others, and the guard runs unconfined.
func (s *Sandbox) guardGitlinks(work string, before gitState) []string {
	links := s.links.get(work, stampOf(filepath.Join(work, ".git", "index")))
	var done []string
	for path := range links {
		gitDir := filepath.Join(work, path, ".git")
		if fi, err := os.Lstat(gitDir); err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(gitDir)
			if dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
				dir = strings.TrimSpace(dir)
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(work, path, dir)
				}
				gitDir = dir
			}
		}
		real, err := filepath.EvalSymlinks(gitDir)
		if err != nil || s.policy.rootOf(real) == "" {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		if before.listed && before.links[path] && !changedSince(real, before.start) {
			continue
		}
		done = append(done, guardRepo(real, filepath.Join(path, ".git"), true, true)...)
	}
	return done
}

// changedSince reports whether a git directory, its config, its hooks
// directory or one of its hooks had its status changed at or after since.
func changedSince(gitDir string, since time.Time) bool {
	paths := []string{gitDir, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "hooks")}
	if ents, err := os.ReadDir(filepath.Join(gitDir, "hooks")); err == nil {
		for _, e := range ents {
			paths = append(paths, filepath.Join(gitDir, "hooks", e.Name()))
		}
	}
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && !changeTime(fi).Before(since) {
			return true
		}
	}
	return false
}

// disableHooks moves every hook but git's samples out of the hooks
// directory.
func disableHooks(gitDir, name string) []string {
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
			done = append(done, name+"/hooks/"+e.Name()+" moved to "+name+"/hooks.blocked-by-agent/")
		}
	}
	return done
}

// plainConfigOf replaces a config that is a link or holds more than
// safeConfigKeys with a plain one.
func plainConfigOf(gitDir, name string) []string {
	path := filepath.Join(gitDir, "config")
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		if b, err := os.ReadFile(path); err == nil && configIsPlain(b) {
			return nil
		}
	}
	if os.Rename(path, path+".blocked-by-agent") != nil || os.WriteFile(path, []byte(plainConfig), 0o644) != nil {
		return nil
	}
	return []string{name + "/config moved to " + name + "/config.blocked-by-agent and replaced by a plain one"}
}

func note(done []string) string {
	if len(done) == 0 {
		return ""
	}
	return "agent sandbox: the command changed what git would run outside the sandbox; undone: " + strings.Join(done, "; ") +
		". Do not try this again; tell the user if a git hook or setting is needed."
}

// GuardBackground is Guard for a command that outlives its call
// (run_in_background). Where a mount namespace keeps the repository's git
// directory read-only for such a command (Linux with user namespaces), it
// repairs nothing in git when the command ends: what changed in the
// repositories during its life, hours for a dev server, is the person's
// own work as likely as the command's, and moving it aside would break
// what the person did. It still says which bounds the command reached.
// Elsewhere it is Guard.
func (s *Sandbox) GuardBackground() func(tools.Result) string {
	ro, ok := s.impl.(interface{ backgroundGitReadOnly() bool })
	if !ok || !ro.backgroundGitReadOnly() {
		return s.Guard()
	}
	st := s.Brief()
	if s.policy.Mode == Off || !st.Enforced {
		return nil
	}
	used := s.impl.usage()
	return func(res tools.Result) string {
		var notes []string
		if n := boundNote(res, used, s.impl.usage(), s.policy.sessionTemp); n != "" {
			notes = append(notes, n)
		}
		if n := refusal(res, st); n != "" {
			notes = append(notes, n)
		}
		return strings.Join(notes, "\n")
	}
}
