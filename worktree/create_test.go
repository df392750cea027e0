package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A worktree is made outside the repository, in the manager's directory
// under the repository's key, on a new branch agent/NAME at the HEAD of
// the directory it was made from, with this process as its owner.
func TestCreateMakesABranchAtHEADOutsideTheRepository(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	r := create(t, m, repo, "fix-parser")

	if want := filepath.Join(m.Dir, Key(repo), "fix-parser"); r.Path != want {
		t.Errorf("path %s, want %s", r.Path, want)
	}
	if strings.HasPrefix(r.Path, repo+string(filepath.Separator)) {
		t.Errorf("the worktree %s is inside the repository", r.Path)
	}
	if got := gitT(t, r.Path, "rev-parse", "--abbrev-ref", "HEAD"); got != "agent/fix-parser" {
		t.Errorf("the worktree is on %q, want agent/fix-parser", got)
	}
	if head := gitT(t, repo, "rev-parse", "HEAD"); r.Base != head || !r.OwnBranch {
		t.Errorf("base %s (own branch %v), want the repository's HEAD %s and a branch of its own", r.Base, r.OwnBranch, head)
	}
	if r.Owner == nil || *r.Owner != me || r.Repo != repo || r.Session != "s-fix-parser" {
		t.Errorf("record %+v, want me as owner, the repository and the session", r)
	}
	if !exists(filepath.Join(r.Path, "README")) {
		t.Error("the worktree holds no checkout")
	}
	if got, ok := m.Find(r.Path); !ok || got.Name != "fix-parser" {
		t.Errorf("Find(%s) = %+v, %v", r.Path, got, ok)
	}
	if got, ok := RepoOf(filepath.Join(r.Path)); !ok || got != repo {
		t.Errorf("RepoOf(the worktree) = %s, %v; want the main repository %s", got, ok, repo)
	}
	if git := gitT(t, repo, "status", "--porcelain"); git != "" {
		t.Errorf("the main tree's git status shows the worktree:\n%s", git)
	}
}

// A worktree made from a linked worktree starts at that worktree's HEAD
// and is recorded under the main repository.
func TestCreateFromAWorktreeStartsAtItsHEAD(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	parent := create(t, m, repo, "parent")
	writeT(t, filepath.Join(parent.Path, "new.txt"), "x\n")
	gitT(t, parent.Path, "add", "new.txt")
	gitT(t, parent.Path, "commit", "-q", "-m", "in the parent")

	child := create(t, m, parent.Path, "child")
	if head := gitT(t, parent.Path, "rev-parse", "HEAD"); child.Base != head {
		t.Errorf("the child's base %s, want the parent worktree's HEAD %s", child.Base, head)
	}
	if child.Repo != repo || filepath.Dir(child.Path) != filepath.Dir(parent.Path) {
		t.Errorf("the child is recorded under %s in %s, want the main repository's", child.Repo, filepath.Dir(child.Path))
	}
	if !exists(filepath.Join(child.Path, "new.txt")) {
		t.Error("the child's checkout lacks the parent's commit")
	}
}

// Create refuses a bad name, a name taken, a directory in no repository
// and a repository without a commit, with errors that say so.
func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	create(t, m, repo, "taken")
	empty := filepath.Join(t.TempDir(), "empty")
	gitT(t, filepath.Dir(empty), "init", "-q", empty)
	for _, c := range []struct {
		name, dir, wt string
		want          error
		text          string
	}{
		{"bad name", repo, "../escape", nil, "worktree name"},
		{"taken", repo, "taken", fs.ErrExist, "exists already"},
		{"no repository", t.TempDir(), "x", ErrNoRepo, "not in a git repository"},
		{"no commit", empty, "x", ErrNoRepo, "HEAD names no commit"},
	} {
		_, err := m.Create(context.Background(), c.dir, Spec{Name: c.wt})
		if err == nil || c.want != nil && !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.text)
		}
	}
	if _, err := os.Stat(filepath.Join(m.Dir, Key(repo), "x.json")); err == nil {
		t.Error("a refused worktree left a record")
	}
}

// An existing agent/NAME branch (kept from an earlier worktree) is
// checked out again rather than made anew, and kept when the worktree
// goes.
func TestCreateTakesUpAnExistingBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	gitT(t, repo, "branch", "agent/again")
	gitT(t, repo, "checkout", "-q", "agent/again")
	writeT(t, filepath.Join(repo, "work.txt"), "earlier work\n")
	gitT(t, repo, "add", "work.txt")
	gitT(t, repo, "commit", "-q", "-m", "earlier")
	tip := gitT(t, repo, "rev-parse", "HEAD")
	gitT(t, repo, "checkout", "-q", "main")

	m := newManager(t)
	r := create(t, m, repo, "again")
	if r.Base != tip || r.OwnBranch || !exists(filepath.Join(r.Path, "work.txt")) {
		t.Errorf("record %+v, want the branch's tip %s as base and not its own branch", r, tip)
	}
	f, err := m.Finish(context.Background(), r, true)
	if err != nil || !f.Removed {
		t.Fatalf("Finish of an unchanged worktree: %+v, %v", f, err)
	}
	if !strings.Contains(branches(t, repo), "agent/again") {
		t.Error("the branch that existed before was deleted")
	}
}

// Names: what CheckName takes and refuses, and the generated ones.
func TestNames(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"fix-parser": true, "20260314-1502-7f3a": true, "a.b_c": true, "A1": true,
		"": false, "-x": false, ".x": false, "a/b": false, "a..b": false, "x.lock": false, "a b": false,
		strings.Repeat("a", 65): false, "é": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", name, err, ok)
		}
	}
	for _, n := range []string{NewName(timeOf(t, "2026-03-14T15:02:00Z")), TaskName()} {
		if err := CheckName(n); err != nil {
			t.Errorf("generated name: %v", err)
		}
	}
	if n := NewName(timeOf(t, "2026-03-14T15:02:00Z")); !strings.HasPrefix(n, "20260314-1502-") || len(n) != len("20260314-1502-7f3a") {
		t.Errorf("NewName = %q, want the date, the time and four hex digits", n)
	}
}

// Worktrees of one repository made at once (isolated subagents starting
// together) are all made: `git worktree add` fails on a worktree another
// one is still making, so the Manager makes them one at a time.
func TestWorktreesMadeAtOnceAreAllMade(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := m.Create(context.Background(), repo, Spec{Name: "at-once-" + string(rune('a'+i))})
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a worktree made beside others: %v", err)
		}
	}
}
