package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// gitLayout is where the working directory's git metadata lives, as found
// when the sandbox was made, before any command ran: a plain .git
// directory, or a .git file ("gitdir: PATH") as in a linked worktree or a
// submodule checkout, whose real git directory lies elsewhere and whose
// hooks and config live in the common directory (the main repository's
// .git for a linked worktree).
type gitLayout struct {
	dotGit  string // Dir/.git
	kind    entryKind
	content []byte // the .git file's content, when kind is entryFile
	gitDir  string // the real git directory, "" when none
	common  string // its common directory (gitDir unless it has a commondir file)
}

// entryKind is what a path is.
type entryKind int

const (
	entryNone entryKind = iota
	entryDir
	entryFile
	entryOther // a symlink, a FIFO...
)

func kindOf(path string) entryKind {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return entryNone
	case fi.IsDir():
		return entryDir
	case fi.Mode().IsRegular():
		return entryFile
	}
	return entryOther
}

// readGitLayout finds the git layout of dir.
func readGitLayout(dir string) gitLayout {
	g := gitLayout{dotGit: filepath.Join(dir, ".git")}
	g.kind = kindOf(g.dotGit)
	switch g.kind {
	case entryDir:
		g.gitDir = g.dotGit
	case entryFile:
		g.content, _ = os.ReadFile(g.dotGit)
		g.gitDir = gitDirOf(g.dotGit, g.content)
	}
	if g.gitDir != "" {
		g.common = commonDirOf(g.gitDir)
	}
	return g
}

// gitDirOf reads the git directory a .git file names ("gitdir: PATH",
// relative to the file's directory), or "" when content is not such a
// file. The path is cleaned, not resolved.
func gitDirOf(dotGit string, content []byte) string {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(content), []byte("gitdir:"))
	if !ok {
		return ""
	}
	dir := strings.TrimSpace(string(rest))
	if dir == "" || strings.ContainsAny(dir, "\n\x00") {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dotGit), dir)
	}
	return filepath.Clean(dir)
}

// commonDirOf reads a git directory's commondir file (relative to the git
// directory), or returns gitDir when it has none.
func commonDirOf(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	dir := strings.TrimSpace(string(b))
	if dir == "" {
		return gitDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return filepath.Clean(dir)
}

// worktreeFiles are the files of a linked worktree's administrative
// directory (common/worktrees/NAME) that tell git where things are:
// rewritten, they point git at a repository of a command's making.
var worktreeFiles = []string{"commondir", "gitdir", "config.worktree"}

// protectedPaths are the existing paths of the layout that must stay
// read-only, as .git/hooks and .git/config do in the plain layout: the .git
// file itself, the real git directory's commondir, gitdir and
// config.worktree, the common directory's hooks and config, each linked
// worktree's administrative files, and each submodule's hooks and config
// in modules/. The policy keeps those that lie inside a writable root.
func (g gitLayout) protectedPaths() []string {
	var out []string
	add := func(paths ...string) {
		for _, p := range paths {
			if kindOf(p) != entryNone {
				out = append(out, p)
			}
		}
	}
	if g.kind == entryFile {
		add(g.dotGit)
	}
	if g.gitDir == "" {
		return out
	}
	if g.gitDir != g.common {
		for _, f := range worktreeFiles {
			add(filepath.Join(g.gitDir, f))
		}
	}
	add(filepath.Join(g.common, "hooks"), filepath.Join(g.common, "config"), filepath.Join(g.common, "config.worktree"))
	if ents, err := os.ReadDir(filepath.Join(g.common, "worktrees")); err == nil {
		for _, e := range ents {
			for _, f := range worktreeFiles {
				add(filepath.Join(g.common, "worktrees", e.Name(), f))
			}
		}
	}
	for _, m := range moduleDirs(g.common) {
		add(filepath.Join(m, "hooks"), filepath.Join(m, "config"))
	}
	return out
}

// maxModuleDepth bounds how deeply modules/ is searched for submodules'
// git directories (a submodule's own submodules nest in its modules/).
const maxModuleDepth = 4

// moduleDirs lists the submodules' git directories under gitDir/modules
// (a submodule named a/b lives in modules/a/b): the directories that hold
// a HEAD file, with those nested in their own modules/.
func moduleDirs(gitDir string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > maxModuleDepth*2 {
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if kindOf(filepath.Join(sub, "HEAD")) == entryFile {
				out = append(out, sub)
				walk(filepath.Join(sub, "modules"), depth+1)
				continue
			}
			walk(sub, depth+1)
		}
	}
	walk(filepath.Join(gitDir, "modules"), 0)
	return out
}

// holds reports whether path is the .git entry or lies in the git or
// common directory.
func (g gitLayout) holds(path string) bool {
	return path == g.dotGit || g.gitDir != "" && within(path, g.gitDir) || g.common != "" && within(path, g.common)
}
