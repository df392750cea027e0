package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitT runs git in dir with a fixed identity and fails the test when it
// fails; it returns git's output, trimmed.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with one commit (README and a .gitignore
// that ignores bin/) and returns its directory, symlinks resolved.
func newRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	gitT(t, filepath.Dir(dir), "init", "-q", dir)
	writeT(t, filepath.Join(dir, "README"), "hello\n")
	writeT(t, filepath.Join(dir, ".gitignore"), "bin/\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// writeT writes a file, making its directory.
func writeT(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// me and other are two processes: me runs the test; other is alive only
// when a test says so.
var me, other = Owner{PID: 1001, Start: 7, Host: "h"}, Owner{PID: 2002, Start: 9, Host: "h"}

// newManager is a manager in a data directory of the test's, run by me;
// live are the other owners that still run.
func newManager(t testing.TB, live ...Owner) *Manager {
	t.Helper()
	return &Manager{Dir: filepath.Join(t.TempDir(), "worktrees"), Self: me, Alive: func(o Owner) bool {
		for _, l := range live {
			if l == o {
				return true
			}
		}
		return false
	}}
}

// as is m run by another process, o, in the same data directory, where
// the owners live are alive.
func as(m *Manager, o Owner, live ...Owner) *Manager {
	return &Manager{Dir: m.Dir, Self: o, Alive: func(x Owner) bool {
		for _, l := range live {
			if l == x {
				return true
			}
		}
		return false
	}}
}

// create makes worktree name of repo with m, failing the test on error.
func create(t testing.TB, m *Manager, repo, name string) Record {
	t.Helper()
	r, err := m.Create(context.Background(), repo, Spec{Name: name, Session: "s-" + name})
	if err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return r
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// branches lists the repository's branches.
func branches(t testing.TB, repo string) string {
	return gitT(t, repo, "branch", "--format=%(refname:short)")
}
