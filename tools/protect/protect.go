// Package protect is the one list of the paths the agent keeps out of the
// model's reach, shared by the file tools and the command sandbox:
//
//   - git metadata: every .git entry (a directory, or the file that points a
//     linked worktree or a submodule checkout at its git directory) and what
//     lies in it, and the working directory's real git directory when a
//     .git file places it elsewhere inside the working directory. Git runs
//     programs named there (hooks, core.fsmonitor, core.hooksPath, filter
//     drivers) outside any sandbox, on the person's next git command;
//   - the agent's own configuration and data (the config file and its
//     directory, the sessions database's directory, trust stores): a
//     rewritten config turns the sandbox off on the next start;
//   - the project's agent configuration (its .claude and .agent
//     directories): hooks there, and the scripts they name, run as the
//     person outside the sandbox at the next hook event; commands, skills
//     and agents there become the next prompts;
//   - credentials (~/.ssh, ~/.aws, ~/.netrc, ...): commands in the sandbox
//     cannot read them, and the file tools refuse them.
//
// Writes are refused unless the person approves the one call (Guard.Grant,
// then Guard.Take by the tool); reads of credentials are refused outright.
package protect

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// The risks a write to a protected path carries, as the person and the
// model read them.
const (
	// RiskGit is the risk of a write to git metadata.
	RiskGit = "git metadata: git runs the hooks and the programs its config names outside the sandbox, on your next git command"
	// RiskAgent is the risk of a write to the agent's own files.
	RiskAgent = "agent's own configuration or data: a changed config or trust store can turn the sandbox off or start programs at the next start"
	// RiskProject is the risk of a write to the project's agent
	// configuration (Paths.Project).
	RiskProject = "the project's agent configuration: its hooks and the scripts they run execute as you, outside the sandbox, at the next hook event"
	// RiskCredentials is the risk of a write to credentials.
	RiskCredentials = "credentials: files that hold keys and tokens"
)

// Paths are the protected paths of a run. Every path is absolute and clean
// (New cleans them).
type Paths struct {
	// Dir is the working directory.
	Dir string
	// Agent are the agent's own directories: the config file's directory
	// and the data directory. One that is Dir or holds it protects only
	// what it holds outside Dir (AgentFiles name what matters inside).
	Agent []string
	// AgentFiles are the agent's own files: the config file, the trust
	// stores.
	AgentFiles []string
	// Project are directories inside Dir that hold the project's agent
	// configuration, read at start to run code as the person (the .claude
	// and .agent directories: hooks and the scripts beside them, custom
	// commands, skills, agents). Writes beneath them carry RiskProject; the
	// sandbox keeps those that exist read-only (a missing one is never
	// made).
	Project []string
	// Credentials are the files and directories commands may not read (see
	// DefaultCredentials).
	Credentials []string
	// DeniedReads are absolute, slash-separated glob patterns (doublestar's:
	// "/work/**/*.pem") of files the file tools do not read either, though
	// the sandbox cannot hide them (the Read deny rules of Claude Code's
	// settings). A path matches when it or a directory holding it does.
	DeniedReads []string
	// GitDirs are the working directory's git and common directories when a
	// .git file names them (a linked worktree, a submodule, a
	// --separate-git-dir); each counts as git metadata.
	GitDirs []string
}

// New returns p with its paths cleaned and those that are not absolute
// dropped, and GitDirs filled from Dir's .git file when it has one (read
// with readFile, which is os.ReadFile outside tests).
func New(p Paths, readFile func(string) ([]byte, error)) Paths {
	clean := func(list []string) []string {
		var out []string
		for _, s := range list {
			if s != "" && filepath.IsAbs(s) && !slices.Contains(out, filepath.Clean(s)) {
				out = append(out, filepath.Clean(s))
			}
		}
		return out
	}
	p.Dir = filepath.Clean(p.Dir)
	p.Agent, p.AgentFiles, p.Credentials, p.GitDirs = clean(p.Agent), clean(p.AgentFiles), clean(p.Credentials), clean(p.GitDirs)
	p.Project = clean(p.Project)
	if readFile != nil {
		if b, err := readFile(filepath.Join(p.Dir, ".git")); err == nil {
			if g := GitDirOf(filepath.Join(p.Dir, ".git"), b); g != "" {
				p.GitDirs = append(p.GitDirs, g)
				if c, err := readFile(filepath.Join(g, "commondir")); err == nil {
					if d := strings.TrimSpace(string(c)); d != "" {
						if !filepath.IsAbs(d) {
							d = filepath.Join(g, d)
						}
						p.GitDirs = append(p.GitDirs, filepath.Clean(d))
					}
				}
			}
		}
	}
	return p
}

// GitDirOf reads the git directory a .git file names ("gitdir: PATH",
// relative to the file's directory), or "" when content is not such a file.
// The path is cleaned, not resolved.
func GitDirOf(dotGit string, content []byte) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(content)), "gitdir:")
	if !ok {
		return ""
	}
	dir := strings.TrimSpace(rest)
	if dir == "" || strings.ContainsAny(dir, "\n\x00") {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dotGit), dir)
	}
	return filepath.Clean(dir)
}

// IsGitName reports whether a path component names a .git entry, as git
// and the file systems it runs on read it: case folded (macOS and Windows
// volumes ignore case), trailing dots and spaces dropped (Windows does).
func IsGitName(name string) bool {
	return strings.EqualFold(strings.TrimRight(name, ". "), ".git")
}

// IsProjectConfigName reports whether a path component names a project's
// agent configuration directory (.claude, Claude Code's; .agent, agent's),
// folded as IsGitName folds: hooks and the scripts they run there execute
// as the person when a session starts in the directory that holds it, so
// one is protected at any depth of the working tree (a monorepo's
// packages/app/.claude).
func IsProjectConfigName(name string) bool {
	n := strings.TrimRight(name, ". ")
	return strings.EqualFold(n, ".claude") || strings.EqualFold(n, ".agent")
}

// WriteRisk says why writing rel (a slash path relative to Dir, as the file
// tools clean it) is dangerous: one of the Risk constants, or "" when rel is
// not protected.
func (p Paths) WriteRisk(rel string) string {
	rel = path.Clean(rel)
	for _, part := range strings.Split(rel, "/") {
		if IsGitName(part) {
			return RiskGit
		}
	}
	abs := filepath.Join(p.Dir, filepath.FromSlash(rel))
	for _, g := range p.GitDirs {
		if within(abs, g) {
			return RiskGit
		}
	}
	for _, a := range p.Agent {
		if within(abs, a) && !within(p.Dir, a) {
			return RiskAgent
		}
	}
	if slices.Contains(p.AgentFiles, abs) {
		return RiskAgent
	}
	for _, d := range p.Project {
		if within(abs, d) {
			return RiskProject
		}
	}
	if r, err := filepath.Rel(p.Dir, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		for _, part := range strings.Split(filepath.ToSlash(r), "/") {
			if IsProjectConfigName(part) {
				return RiskProject
			}
		}
	}
	if p.credential(abs) {
		return RiskCredentials
	}
	return ""
}

// ReadDenied reports whether rel (relative to Dir) is or lies in a
// credentials path, or matches DeniedReads: the file tools do not read
// it.
func (p Paths) ReadDenied(rel string) bool {
	abs := filepath.Join(p.Dir, filepath.FromSlash(path.Clean(rel)))
	if p.credential(abs) {
		return true
	}
	for d := filepath.ToSlash(abs); len(p.DeniedReads) > 0; {
		for _, pat := range p.DeniedReads {
			if ok, _ := doublestar.Match(pat, d); ok {
				return true
			}
		}
		parent := path.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return false
}

// credential reports whether abs is or lies in a credentials path.
func (p Paths) credential(abs string) bool {
	for _, c := range p.Credentials {
		if within(abs, c) {
			return true
		}
	}
	return false
}

// SandboxProtected are the paths the sandbox keeps read-only inside its
// writable roots, besides the git metadata it finds itself: the agent's
// directories (the sandbox makes a missing one), and those of its files and
// of the project's configuration directories that exist (lstat is os.Lstat
// outside tests; a missing one is never made up), with the .claude and
// .agent directories found at any depth of Dir (NestedProject, a bounded
// walk). An agent directory that
// holds Dir (a worktree in the data directory) would make Dir read-only
// whole: in its place come the entries that exist now beside the way down
// to Dir, at each level (read with os.ReadDir); what is made in them later
// is not protected where the directory lies in a writable root (a data
// directory under /tmp).
func (p Paths) SandboxProtected(lstat func(string) (os.FileInfo, error)) []string {
	out := p.SandboxProtectedNow(lstat)
	for _, d := range NestedProject(p.Dir, MaxNestedWalk) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// SandboxProtectedNow is SandboxProtected without the walk for the .claude
// and .agent directories below Dir (NestedProject): the paths a sandbox
// needs at once, where the walk, tens of milliseconds in a large tree, can
// wait for its first command (sandbox.Policy.ProtectedLater).
func (p Paths) SandboxProtectedNow(lstat func(string) (os.FileInfo, error)) []string {
	var out []string
	for _, a := range p.Agent {
		if p.Dir == a || !within(p.Dir, a) {
			out = append(out, a)
			continue
		}
		for _, e := range besideTheWay(a, p.Dir) {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	for _, f := range append(slices.Clone(p.AgentFiles), p.Project...) {
		if _, err := lstat(f); err == nil && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// MaxNestedWalk is the most directories NestedProject lists: a walk of a
// working tree of that many directories costs a few tens of milliseconds
// once per session.
const MaxNestedWalk = 20_000

// NestedProject lists the project configuration directories (.claude,
// .agent: IsProjectConfigName) at any depth below dir, dir's own ones
// included, listing at most limit directories breadth first (shallow ones
// first). It does not follow symlinks nor descend into .git entries or
// the configuration directories themselves; a symlink so named is listed
// (its directory is what the sandbox keeps read-only).
func NestedProject(dir string, limit int) []string {
	var out []string
	queue := []string{dir}
	for listed := 0; len(queue) > 0 && listed < limit; listed++ {
		cur := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(cur)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(cur, e.Name())
			switch {
			case IsProjectConfigName(e.Name()):
				out = append(out, p)
			case IsGitName(e.Name()):
			case e.IsDir():
				queue = append(queue, p)
			}
		}
	}
	return out
}

// besideTheWay lists the entries of top and of each directory below it
// on the way down to dir (which top holds), but for the one that leads
// to dir.
func besideTheWay(top, dir string) []string {
	var out []string
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return nil
	}
	cur := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		ents, _ := os.ReadDir(cur)
		for _, e := range ents {
			if e.Name() != part {
				out = append(out, filepath.Join(cur, e.Name()))
			}
		}
		cur = filepath.Join(cur, part)
	}
	return out
}

// within reports whether path is root or beneath it (both clean).
func within(path, root string) bool {
	if root == "/" {
		return true
	}
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// DefaultCredentials are the files and directories under home that hold
// credentials: SSH and GnuPG keys, cloud and cluster credentials, registry
// and forge tokens, password stores. Commands in the sandbox cannot read
// them unless the config leaves one readable ([sandbox] allow_read).
func DefaultCredentials(home string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	var out []string
	for _, rel := range []string{
		".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker",
		".netrc", ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub", ".config/glab-cli",
		".npmrc", ".yarnrc.yml", ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
		".terraform.d/credentials.tfrc.json", ".pgpass", ".my.cnf", ".password-store", ".config/op",
		".local/share/keyrings", ".vault-token", ".claude/.credentials.json", ".claude.json",
		// Other coding agents' logins: Codex CLI's, Gemini CLI's, opencode's.
		".codex/auth.json", ".gemini/oauth_creds.json", ".local/share/opencode/auth.json",
	} {
		out = append(out, filepath.Join(home, rel))
	}
	return out
}

// Guard is what the editing tools ask before a write: the protected paths
// and the person's approvals of single calls. It is safe for concurrent
// use.
type Guard struct {
	paths Paths
	// shared, when not nil, holds the approvals (With); mu and grants
	// are then unused.
	shared *Guard
	mu     sync.Mutex
	grants map[string]int
}

// NewGuard returns a guard of paths with no approval given.
func NewGuard(paths Paths) *Guard { return &Guard{paths: paths, grants: map[string]int{}} }

// With returns a guard of paths that shares g's approvals: a subagent's
// file tools in a worktree of their own take the approvals the person
// gives through the session's guard (one write each, by the path the
// tool's result names).
func (g *Guard) With(paths Paths) *Guard {
	if g == nil {
		return NewGuard(paths)
	}
	return &Guard{paths: paths, shared: g}
}

// Paths returns the guard's protected paths.
func (g *Guard) Paths() Paths {
	if g == nil {
		return Paths{}
	}
	return g.paths
}

// Risk is Paths.WriteRisk of each of rels (a path as given and as its
// symlinks resolve): the first risk found, "" when none is protected. A
// nil Guard protects nothing.
func (g *Guard) Risk(rels ...string) string {
	if g == nil {
		return ""
	}
	for _, r := range rels {
		if risk := g.paths.WriteRisk(r); risk != "" {
			return risk
		}
	}
	return ""
}

// Grant records the person's approval of one write to rel (as the tool's
// result Meta[tools.MetaPath] names it), taken by the next Take of rel.
func (g *Guard) Grant(rel string) {
	if g.shared != nil {
		g.shared.Grant(rel)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.grants[rel]++
}

// Take consumes an approval of a write to rel and reports whether there
// was one. A nil Guard has none.
func (g *Guard) Take(rel string) bool {
	if g == nil {
		return false
	}
	if g.shared != nil {
		return g.shared.Take(rel)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.grants[rel] == 0 {
		return false
	}
	g.grants[rel]--
	if g.grants[rel] == 0 {
		delete(g.grants, rel)
	}
	return true
}
