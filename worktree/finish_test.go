package worktree

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// At a session's end, a worktree with no change and no new commit goes
// with its branch; one with uncommitted changes (an untracked file, a
// changed one) or new commits stays, ownerless, and the line that tells
// the person says where, on which branch, and what it holds. Ignored
// files count for nothing.
func TestFinishRemovesOnlyAnUnchangedWorktree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		work     func(t *testing.T, dir string)
		removed  bool
		state    string
		files    []string
		keptLine string
	}{
		{"nothing", func(*testing.T, string) {}, true, StateClean, nil, ""},
		{"ignored files only", func(t *testing.T, dir string) { writeT(t, filepath.Join(dir, "bin", "tool"), "x") }, true, StateClean, nil, ""},
		{"a new file", func(t *testing.T, dir string) { writeT(t, filepath.Join(dir, "notes.md"), "one\ntwo\n") },
			false, StateDirty, []string{"notes.md"}, "(0 commits, 1 file changed)"},
		{"a changed file", func(t *testing.T, dir string) { writeT(t, filepath.Join(dir, "README"), "changed\n") },
			false, StateDirty, []string{"README"}, "(0 commits, 1 file changed)"},
		{"a commit", func(t *testing.T, dir string) {
			writeT(t, filepath.Join(dir, "a.go"), "package a\n")
			gitT(t, dir, "add", "a.go")
			gitT(t, dir, "commit", "-q", "-m", "a")
		}, false, StateAhead, []string{"a.go"}, "(1 commit, 1 file changed)"},
		{"a commit and a new file", func(t *testing.T, dir string) {
			writeT(t, filepath.Join(dir, "a.go"), "package a\n")
			gitT(t, dir, "add", "a.go")
			gitT(t, dir, "commit", "-q", "-m", "a")
			writeT(t, filepath.Join(dir, "b.go"), "package a\n")
		}, false, StateDirty, []string{"a.go", "b.go"}, "(1 commit, 2 files changed)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			m := newManager(t)
			r := create(t, m, repo, "wt")
			c.work(t, r.Path)
			f, err := m.Finish(context.Background(), r, true)
			if err != nil {
				t.Fatal(err)
			}
			if f.Removed != c.removed || f.Status.State() != c.state {
				t.Fatalf("removed %v in state %s, want %v in %s", f.Removed, f.Status.State(), c.removed, c.state)
			}
			if c.removed {
				if exists(r.Path) || exists(recordPath(filepath.Dir(r.Path), "wt")) || strings.Contains(branches(t, repo), "agent/wt") {
					t.Errorf("a removed worktree left its directory, record or branch (branches: %s)", branches(t, repo))
				}
				if list := gitT(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
					t.Errorf("git still lists the worktree:\n%s", list)
				}
				return
			}
			if !exists(r.Path) || !slices.Equal(f.Diff.Files, c.files) {
				t.Errorf("kept worktree: exists %v, files %v; want %v", exists(r.Path), f.Diff.Files, c.files)
			}
			want := "worktree kept at " + r.Path + " on branch agent/wt " + c.keptLine
			if f.Kept() != want {
				t.Errorf("Kept() = %q\nwant    %q", f.Kept(), want)
			}
			if !strings.Contains(f.Diff.Stat, c.files[0]) || !strings.Contains(f.Diff.Summary, "changed") {
				t.Errorf("diff stat %q, summary %q", f.Diff.Stat, f.Diff.Summary)
			}
			got, err := m.Get(repo, "wt")
			if err != nil || got.Owner != nil {
				t.Errorf("a kept worktree's record %+v (%v), want it there without an owner", got, err)
			}
			if st := gitT(t, r.Path, "status", "--porcelain"); c.state == StateDirty && st == "" {
				t.Error("the diff touched the worktree's own index or files")
			}
		})
	}
}

// Finish with remove false (a worktree the session took up, not made)
// keeps even an unchanged worktree.
func TestFinishKeepsAWorktreeItDidNotMake(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	r := create(t, m, repo, "wt")
	f, err := m.Finish(context.Background(), r, false)
	if err != nil || f.Removed || !exists(r.Path) {
		t.Errorf("Finish(remove false) = %+v, %v; want it kept", f, err)
	}
}

// The index copy that counts untracked files leaves the worktree's
// index as it was.
func TestDiffLeavesTheIndexAlone(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	r := create(t, newManager(t), repo, "wt")
	writeT(t, filepath.Join(r.Path, "new.txt"), "x\n")
	before := gitT(t, r.Path, "status", "--porcelain")
	d, err := DiffOf(context.Background(), r)
	if err != nil || !slices.Equal(d.Files, []string{"new.txt"}) {
		t.Fatalf("DiffOf = %+v, %v", d, err)
	}
	if after := gitT(t, r.Path, "status", "--porcelain"); after != before || !strings.HasPrefix(after, "??") {
		t.Errorf("status after the diff %q, before %q", after, before)
	}
}
