package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Remove refuses a dirty worktree unless forced, and a worktree whose
// owner still runs even when forced; a forced removal of a dirty one loses
// its changes but keeps a branch with commits.
func TestRemoveRefusesDirtyAndInUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t)
	m := newManager(t)
	r := create(t, m, repo, "wt")
	writeT(t, filepath.Join(r.Path, "a.go"), "package a\n")
	gitT(t, r.Path, "add", "a.go")
	gitT(t, r.Path, "commit", "-q", "-m", "a")
	writeT(t, filepath.Join(r.Path, "scratch.txt"), "unsaved\n")

	live := as(m, other, me) // another process, while this one still runs
	if _, err := live.RemoveForce(ctx, r); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "process 1001") {
		t.Errorf("forced removal of a worktree in use: %v, want ErrInUse naming the process", err)
	}
	later := as(m, other) // this process is gone
	if _, err := later.Remove(ctx, r); !errors.Is(err, ErrDirty) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("removal of a dirty worktree: %v, want ErrDirty saying --force", err)
	}
	if !exists(filepath.Join(r.Path, "scratch.txt")) {
		t.Fatal("a refused removal removed the files")
	}
	rm, err := later.RemoveForce(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if exists(r.Path) || !rm.BranchKept || rm.Commits != 1 || !strings.Contains(branches(t, repo), "agent/wt") {
		t.Errorf("forced removal: %+v, directory there %v, branches %s; want it gone and its branch with 1 commit kept", rm, exists(r.Path), branches(t, repo))
	}
	if _, err := later.Get(repo, "wt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the record is still there: %v", err)
	}
}

// A crash leaves worktrees whose owner is gone: the next start finds
// them once (Orphans), and leaves alone those of processes that still
// run and those kept by a session's end.
func TestOrphansAreFoundOnce(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	m := newManager(t)
	crashed := create(t, m, repo, "crashed")
	create(t, as(m, other), repo, "running")
	kept := create(t, m, repo, "kept")
	writeT(t, filepath.Join(kept.Path, "x"), "x")
	if _, err := m.Finish(context.Background(), kept, true); err != nil {
		t.Fatal(err)
	}

	next := as(m, Owner{PID: 3003, Host: "h"}, other) // a later start; me is gone, other runs
	got := next.Orphans(repo)
	if len(got) != 1 || got[0].Name != crashed.Name || !got[0].Crashed || got[0].Owner != nil {
		t.Fatalf("Orphans = %+v, want the crashed one alone, marked", got)
	}
	if again := next.Orphans(repo); len(again) != 0 {
		t.Errorf("found again at the next start: %+v", again)
	}
	entries, errs := next.List(context.Background(), repo)
	if len(errs) > 0 || len(entries) != 3 {
		t.Fatalf("List = %+v, %v", entries, errs)
	}
	states := map[string]string{}
	for _, e := range entries {
		states[e.Name] = e.Describe()
	}
	want := map[string]string{"crashed": "clean; left by a crash", "running": "clean; in use by process 2002", "kept": "dirty (1 file)"}
	for n, w := range want {
		if states[n] != w {
			t.Errorf("%s: %q, want %q", n, states[n], w)
		}
	}
}

// Prune removes the worktrees nobody works in: clean ones (with their
// branch), ahead ones (their branch kept) and missing ones (git's record
// too); it keeps dirty ones unless forced and never touches one in use.
func TestPrune(t *testing.T) {
	t.Parallel()
	for _, force := range []bool{false, true} {
		t.Run(map[bool]string{false: "without force", true: "forced"}[force], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t)
			m := newManager(t)
			create(t, m, repo, "clean")
			ahead := create(t, m, repo, "ahead")
			writeT(t, filepath.Join(ahead.Path, "a.go"), "package a\n")
			gitT(t, ahead.Path, "add", "a.go")
			gitT(t, ahead.Path, "commit", "-q", "-m", "a")
			dirty := create(t, m, repo, "dirty")
			writeT(t, filepath.Join(dirty.Path, "README"), "changed\n")
			missing := create(t, m, repo, "missing")
			if err := os.RemoveAll(missing.Path); err != nil {
				t.Fatal(err)
			}
			inUse := create(t, as(m, other), repo, "in-use")
			writeT(t, filepath.Join(inUse.Path, "README"), "being edited\n")

			next := as(m, Owner{PID: 3003, Host: "h"}, other)
			out, err := next.Prune(ctx, repo, force)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Pruned{}
			for _, p := range out {
				got[p.Name] = p
			}
			for name, kept := range map[string]bool{"clean": false, "ahead": false, "missing": false, "dirty": !force, "in-use": true} {
				p, ok := got[name]
				if !ok || p.Kept != kept {
					t.Errorf("%s: %+v, want kept %v", name, p, kept)
					continue
				}
				if exists(filepath.Join(filepath.Dir(ahead.Path), name)) != kept {
					t.Errorf("%s: directory there %v, want %v", name, !kept, kept)
				}
			}
			if !strings.Contains(got["in-use"].Why, "in use by process 2002") || !force && !strings.Contains(got["dirty"].Why, "--force") {
				t.Errorf("why kept: in use %q, dirty %q", got["in-use"].Why, got["dirty"].Why)
			}
			if p := got["ahead"]; !p.BranchKept || p.Commits != 1 {
				t.Errorf("ahead: %+v, want its branch kept with 1 commit", p)
			}
			bs := branches(t, repo)
			for _, b := range []string{"agent/clean", "agent/missing"} {
				if strings.Contains(bs, b) {
					t.Errorf("%s was not deleted: %s", b, bs)
				}
			}
			if list := gitT(t, repo, "worktree", "list"); strings.Contains(list, "missing") {
				t.Errorf("git still lists the missing worktree:\n%s", list)
			}
		})
	}
}

// The table names each worktree, its branch, state, session and path.
func TestWriteTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := WriteTable(&b, []Entry{
		{Record: Record{Name: "fix", Branch: "agent/fix", Session: "3f2a9c", Path: "/d/fix"}, Status: Status{Commits: 2}},
		{Record: Record{Name: "task-1a2b3c", Branch: "agent/task-1a2b3c", Session: "77aa", Task: "call-1", Path: "/d/t\nx", Owner: &me}, Status: Status{Dirty: 1}, InUse: true},
		{Record: Record{Name: "gone", Branch: "agent/gone", Path: "/d/gone", Crashed: true}, Status: Status{Missing: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `NAME         BRANCH             STATE                                   SESSION          PATH
fix          agent/fix          ahead (2 commits)                       3f2a9c           /d/fix
task-1a2b3c  agent/task-1a2b3c  dirty (1 file); in use by process 1001  77aa (subagent)  /d/t x
gone         agent/gone         missing; left by a crash                -                /d/gone
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}
