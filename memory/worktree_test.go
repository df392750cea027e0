package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/worktree"
)

// A linked worktree's memory is its main repository's: the same
// MEMORY.md, and a search from either finds the sessions of both (the
// worktree lives in the data directory, outside the repository).
func TestAWorktreeHasItsRepositorysMemory(t *testing.T) {
	f := newFixture(t)
	wt := filepath.Join(worktree.RepoDir(f.data, f.root), "fix")
	admin := filepath.Join(f.root, ".git", "worktrees", "fix")
	must(t, os.MkdirAll(wt, 0o755))
	must(t, os.MkdirAll(admin, 0o755))
	must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644))

	main, inWorktree := f.memory(f.root, day), f.memory(wt, day)
	if inWorktree.Dir() != main.Dir() || inWorktree.Root() != f.root {
		t.Fatalf("the worktree's memory is %s (root %s), want the repository's %s", inWorktree.Dir(), inWorktree.Root(), main.Dir())
	}
	id := f.session(t, wt, "the flaky test was the clock in the worktree")
	f.session(t, filepath.Join(worktree.RepoDir(f.data, t.TempDir()), "x"), "another project's clock")
	rs, err := main.Search(context.Background(), "flaky clock", SearchOptions{})
	must(t, err)
	if len(rs) != 1 || !strings.HasPrefix(rs[0].Key, id+":") {
		t.Errorf("a search from the main tree found %+v, want the worktree's session alone", rs)
	}
}
