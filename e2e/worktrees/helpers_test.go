package worktrees

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/worktree"
)

// gitIn runs git in dir with a fixed identity; the test fails when it
// fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// project is a git repository with one commit (a README) and a session
// database outside it, whose directory holds the worktrees.
type project struct {
	repo, db string
}

func newProject(t *testing.T) project {
	t.Helper()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("# project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	return project{repo: repo, db: filepath.Join(t.TempDir(), "data", "agent.db")}
}

// worktreeDir is where agent makes worktree name of the project.
func (p project) worktreeDir(name string) string {
	return filepath.Join(worktree.RepoDir(filepath.Dir(p.db), p.repo), name)
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// branches are the repository's branches, one a line.
func (p project) branches(t *testing.T) string {
	return gitIn(t, p.repo, "branch", "--format=%(refname:short)")
}
