//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The protected paths a command's mount namespace binds read-only, looked
// up for each command.

// readOnlyGit adds the working directory's git and common directories,
// where they lie in a writable root, to a command's read-only paths (a
// bind mount of each, its protected files mounted on it already), taking
// them from the pinned ones, which protectedNow makes of the parents of
// .git/hooks and .git/config.
func readOnlyGit(p Policy, pinned, readOnly []string) ([]string, []string) {
	for _, d := range []string{p.git.gitDir, p.git.common} {
		if d == "" || p.rootOf(d) == "" || slices.Contains(readOnly, d) {
			continue
		}
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue // a symlinked git directory: its own directory stays protected
		}
		pinned = slices.DeleteFunc(pinned, func(x string) bool { return x == d })
		readOnly = append(readOnly, d)
	}
	return pinned, readOnly
}

// protectedNow lists, for one command, the protected paths to bind
// read-only and the directories to pin: every directory between a writable
// root and a protected path is bind-mounted over itself, so that a command
// can neither rename it away nor put a writable copy in its place (a mount
// point cannot be moved). It is looked up anew for each command, without
// following symlinks: a protected path reached through a symlink is
// protected by making the symlink's directory read-only instead, since the
// link itself could otherwise be replaced. A .git directory without hooks
// gets an empty hooks directory (as `git init` makes), and a missing
// protected directory of the agent's is created, so that a command cannot
// create them writable.
func protectedNow(p Policy) (pinned, readOnly []string) {
	seen := map[string]bool{}
	add := func(list *[]string, path string) {
		if !seen[path] {
			seen[path] = true
			*list = append(*list, path)
		}
	}
	for _, path := range p.protected() {
		root := p.rootOf(path)
		if root == "" || path == root {
			continue
		}
		// Walk from the root down, stopping at a symlink or a missing part.
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(rel, string(filepath.Separator))
		cur, link, missing := root, "", false
		var dirs []string
		for i, part := range parts {
			cur = filepath.Join(cur, part)
			fi, err := os.Lstat(cur)
			switch {
			case errors.Is(err, os.ErrNotExist):
				missing = true
			case err != nil:
				missing = true
			case fi.Mode()&os.ModeSymlink != 0:
				link = cur
			case i < len(parts)-1 && !fi.IsDir():
				missing = true // a .git file (worktree): nothing here to protect
			}
			if missing || link != "" {
				break
			}
			if i < len(parts)-1 {
				dirs = append(dirs, cur)
			}
		}
		switch {
		case link != "":
			add(&readOnly, filepath.Dir(link))
			continue
		case missing && p.git.holds(path) && filepath.Base(path) != "hooks":
			continue // git's files are never made up: the guard looks after those that appear
		case missing:
			created, ok := createProtected(path, dirs, len(parts))
			if !ok {
				continue
			}
			dirs = append(dirs, created...)
		}
		for _, d := range dirs {
			add(&pinned, d)
		}
		add(&readOnly, path)
	}
	return pinned, readOnly
}

// createProtected creates a missing protected directory, with the missing
// directories above it (which protectedNow then pins), when no symlink is on
// the way: one of the agent's directories, or .git/hooks inside an existing
// .git. It never creates a .git, nor a missing .git/config (the git guard
// looks after one that a command creates). existing are the directories
// found on the way down from the root; depth is how many parts the path has
// below it. It returns the directories it created above the path.
func createProtected(path string, existing []string, depth int) ([]string, bool) {
	inGit := filepath.Base(filepath.Dir(path)) == ".git"
	switch {
	case inGit && filepath.Base(path) == "config":
		return nil, false
	case inGit && len(existing) != depth-1:
		return nil, false // no .git: no repository to protect
	}
	var created []string
	cur := path
	for i := depth - 1; i > len(existing); i-- {
		cur = filepath.Dir(cur)
		created = append([]string{cur}, created...)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, false
	}
	return created, true
}

// existing keeps the directories that exist.
func existing(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
