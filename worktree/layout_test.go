package worktree

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// timeOf parses an RFC 3339 time.
func timeOf(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// CommonDir, MainRoot and RepoOf read a directory's layout from files: a
// linked worktree maps to its main repository, a plain repository and a
// submodule-like .git file (no commondir) to themselves, no repository to
// nothing.
func TestLayoutFromFiles(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	wt := create(t, m, repo, "wt")
	sub := filepath.Join(t.TempDir(), "sub")
	modules := filepath.Join(t.TempDir(), "modules", "sub")
	for _, d := range []string{sub, modules} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeT(t, filepath.Join(sub, ".git"), "gitdir: "+modules+"\n")
	nowhere := t.TempDir()
	deep := filepath.Join(wt.Path, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, dir string
		main      string
		mainOK    bool
		repoOf    string
		repoOfOK  bool
		commonOK  bool
	}{
		{"linked worktree", wt.Path, repo, true, repo, true, true},
		{"inside a linked worktree", deep, "", false, repo, true, false},
		{"plain repository", repo, "", false, repo, true, false},
		{"submodule checkout", sub, "", false, sub, true, false},
		{"no repository", nowhere, "", false, "", false, false},
	} {
		if got, ok := MainRoot(c.dir); got != c.main || ok != c.mainOK {
			t.Errorf("%s: MainRoot = %q, %v; want %q, %v", c.name, got, ok, c.main, c.mainOK)
		}
		if _, ok := CommonDir(c.dir); ok != c.commonOK {
			t.Errorf("%s: CommonDir ok %v, want %v", c.name, ok, c.commonOK)
		}
		got, ok := RepoOf(c.dir)
		if real, err := filepath.EvalSymlinks(c.repoOf); c.repoOf != "" && err == nil {
			c.repoOf = real
		}
		if got != c.repoOf || ok != c.repoOfOK {
			t.Errorf("%s: RepoOf = %q, %v; want %q, %v", c.name, got, ok, c.repoOf, c.repoOfOK)
		}
	}
	if common, _ := CommonDir(wt.Path); common != filepath.Join(repo, ".git") {
		t.Errorf("CommonDir of the worktree = %s, want %s", common, filepath.Join(repo, ".git"))
	}
}

// A worktree made from a subdirectory is entered at the same
// subdirectory; Find knows the worktree from anywhere inside it.
func TestSameSubdirAndFindFromInside(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	writeT(t, filepath.Join(repo, "web", "app.js"), "x\n")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "web")
	if err := os.MkdirAll(filepath.Join(repo, "untracked-only"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newManager(t)
	r := create(t, m, repo, "wt")
	for _, c := range []struct{ from, want string }{
		{repo, r.Path},
		{filepath.Join(repo, "web"), filepath.Join(r.Path, "web")},
		{filepath.Join(repo, "untracked-only"), r.Path},
		{t.TempDir(), r.Path},
	} {
		if got := SameSubdir(context.Background(), c.from, r.Path); got != c.want {
			t.Errorf("SameSubdir(%s) = %s, want %s", c.from, got, c.want)
		}
	}
	for _, dir := range []string{r.Path, filepath.Join(r.Path, "web")} {
		if got, ok := m.Find(dir); !ok || got.Name != "wt" {
			t.Errorf("Find(%s) = %+v, %v", dir, got, ok)
		}
	}
	if _, ok := m.Find(filepath.Dir(r.Path)); ok {
		t.Error("Find of the worktrees' directory found one")
	}
}
