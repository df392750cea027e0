package worktree

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BranchPrefix begins the name of every branch agent makes for a
// worktree: agent/NAME.
const BranchPrefix = "agent/"

// DirName is the directory of the data directory that holds the
// worktrees: DATA/worktrees/KEY/NAME.
const DirName = "worktrees"

// RepoDir is the directory of the worktrees of the repository whose main
// working tree is root, in the data directory data: DATA/worktrees/KEY.
func RepoDir(data, root string) string { return filepath.Join(data, DirName, Key(root)) }

// maxName bounds a worktree's name.
const maxName = 64

// CheckName says why name cannot name a worktree (nil when it can): it
// must be 1-64 letters, digits, '.', '_' or '-', start with a letter or a
// digit, and not hold ".." nor end with ".lock" (git refuses such branch
// names).
func CheckName(name string) error {
	bad := name == "" || len(name) > maxName || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock")
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '_' || r == '-')
		bad = bad || !ok
	}
	if bad {
		return fmt.Errorf("worktree name %q: use 1-%d letters, digits, '.', '_' or '-', starting with a letter or a digit", name, maxName)
	}
	return nil
}

// NewName is a generated name for a worktree made at now: the date and
// time and four random hex digits, "20260314-1502-7f3a".
func NewName(now time.Time) string {
	return now.Format("20060102-1504") + "-" + randomHex(2)
}

// TaskName is a generated name for a subagent's worktree, "task-7f3a9c".
func TaskName() string { return "task-" + randomHex(3) }

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// Key names a repository's directory of worktrees: the base name of its
// main working tree (letters, digits, '.', '-' and '_' kept, anything else
// '_') and the first 12 hex digits of the SHA-256 of its path,
// "agent-3f2a9c0d1e4b" (memory keys projects the same way).
func Key(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := []rune(filepath.Base(root))
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			name[i] = '_'
		}
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return strings.Trim(string(name), ".") + "-" + hex.EncodeToString(sum[:6])
}

// CommonDir returns the common git directory of dir when dir is the root
// of a linked worktree (its .git is a file naming a git directory that has
// a commondir file): the main repository's .git. It reads files only (no
// git process), so it is cheap enough for every start. ok is false for a
// plain repository, a submodule checkout, or no repository.
func CommonDir(dir string) (common string, ok bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	content, err := os.ReadFile(dotGit)
	if err != nil {
		return "", false
	}
	rest, found := bytes.CutPrefix(bytes.TrimSpace(content), []byte("gitdir:"))
	gitDir := strings.TrimSpace(string(rest))
	if !found || gitDir == "" || strings.ContainsAny(gitDir, "\n\x00") {
		return "", false
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "", false
	}
	common = strings.TrimSpace(string(b))
	if common == "" {
		return "", false
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return filepath.Clean(common), true
}

// MainRoot returns the main working tree of the repository whose linked
// worktree has its root at dir (where its .git file is), read from files
// as CommonDir does: the directory that holds the common .git directory.
// ok is false when dir is no linked worktree's root, or when the common
// directory is not named .git (a bare repository or a separate git
// directory, whose main working tree the files do not say).
func MainRoot(dir string) (root string, ok bool) {
	common, ok := CommonDir(dir)
	if !ok || filepath.Base(common) != ".git" {
		return "", false
	}
	return filepath.Dir(common), true
}

// RepoOf returns the main working tree of the repository holding dir,
// read from files as CommonDir does (no git process): the nearest
// directory from dir upwards with a .git entry, or, when that is a linked
// worktree's root, its main working tree; its symlinks resolved, as git
// names it. ok is false when no directory upwards has a .git entry.
func RepoOf(dir string) (root string, ok bool) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if main, ok := MainRoot(d); ok {
				if real, err := filepath.EvalSymlinks(main); err == nil {
					return real, true
				}
				return main, true
			}
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// SameSubdir is the directory of the worktree at root that stands where
// dir stands in its own working tree (agent -w in repo/web works in
// WORKTREE/web), or root when dir is its tree's root, in no repository, or
// the worktree lacks that directory.
func SameSubdir(ctx context.Context, dir, root string) string {
	out, err := git(ctx, dir, "rev-parse", "--show-prefix")
	prefix := strings.TrimSuffix(strings.TrimSpace(out), "/")
	if err != nil || prefix == "" || !filepath.IsLocal(prefix) {
		return root
	}
	sub := filepath.Join(root, filepath.FromSlash(prefix))
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		return root
	}
	return sub
}
