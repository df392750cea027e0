package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The watched store must take the same checkpoints as one that reads the
// whole tree each time: same content, same tree id.
func TestAWatchedStoreSeesEveryChangeAFullReadSees(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	watched := open(t, dir, Options{Watch: true})
	defer watched.Close()
	full := open(t, dir, Options{})
	steps := []struct {
		name string
		do   func()
	}{
		{"nothing", func() {}},
		{"an edit", func() { write(t, dir, "a.txt", "edited\n") }},
		{"a new file", func() { write(t, dir, "new.txt", "new\n") }},
		{"a new tree of directories", func() { write(t, dir, "x/y/z/deep.txt", "deep\n"); write(t, dir, "x/top.txt", "top\n") }},
		{"a file in the new tree", func() { write(t, dir, "x/y/later.txt", "later\n") }},
		{"a removal", func() { os.Remove(filepath.Join(dir, "sub", "b.txt")) }},
		{"a directory removed", func() { os.RemoveAll(filepath.Join(dir, "x", "y")) }},
		{"a directory renamed", func() { os.Rename(filepath.Join(dir, "x"), filepath.Join(dir, "renamed")) }},
		{"an ignored file", func() { write(t, dir, "build/more.bin", "ignored\n"); write(t, dir, "debug.log", "ignored\n") }},
		{"the ignore rules changed", func() { write(t, dir, ".gitignore", "build/\n") }},
		{"a mode change", func() { os.Chmod(filepath.Join(dir, "new.txt"), 0o755) }},
		{"a nested repository", func() {
			os.Mkdir(filepath.Join(dir, "nested"), 0o755)
			run(t, filepath.Join(dir, "nested"), "git", "init", "-q")
			write(t, dir, "nested/inside.txt", "inside\n")
		}},
		{"a file in the nested repository", func() { write(t, dir, "nested/more.txt", "more\n") }},
		{"a file put back as it was", func() { write(t, dir, "a.txt", "one\ntwo\n") }},
	}
	for i, st := range steps {
		st.do()
		w, err := watched.Take(ctx, "s", fmt.Sprintf("p%d", i))
		if err != nil {
			t.Fatal(err)
		}
		f, err := full.Take(ctx, "s", fmt.Sprintf("p%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if w.Tree != f.Tree {
			t.Fatalf("after %s the watched checkpoint is %s, a full read's %s", st.name, w.Tree, f.Tree)
		}
	}
	if watched.watch == nil {
		t.Fatal("the store never watched: the test compared two full reads")
	}
}

// A watched checkpoint that fails (its index locked by another git, or
// cancelled as the turn is) has taken the watch's changes: the next one
// must still see them.
func TestACheckpointAfterOneThatFailedSeesTheChangesBeforeIt(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := takeAfter(t, dir, Options{Watch: true})
	if s.watch == nil {
		t.Fatal("the store never watched")
	}
	same := func(snap Snapshot) {
		t.Helper()
		if want, fs := freshRead(t, dir); snap.Tree != want {
			t.Fatalf("the checkpoint holds\n%s\na fresh read\n%s", listing(t, s, snap.Tree), listing(t, fs, want))
		}
	}
	write(t, dir, "a.txt", "changed before a checkpoint that failed\n")
	lock := s.indexOf("s") + ".lock"
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "s", "locked"); err == nil {
		t.Fatal("a checkpoint was taken through a locked index")
	}
	os.Remove(lock)
	snap, err := s.Take(ctx, "s", "next")
	if err != nil {
		t.Fatal(err)
	}
	same(snap)

	write(t, dir, "sub/b.txt", "changed before a cancelled checkpoint\n")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Take(cancelled, "s", "cancelled"); err == nil {
		t.Fatal("a cancelled checkpoint was taken")
	}
	snap, err = s.Take(ctx, "s", "after")
	if err != nil {
		t.Fatal(err)
	}
	same(snap)
}

// fsnotify names the events of a moved tree's subdirectories by their old
// paths: the watch must follow the tree where it went.
func TestAWatchedStoreFollowsATreeMovedAndMovedBack(t *testing.T) {
	dir := repo(t)
	s := takeAfter(t, dir, Options{Watch: true},
		func() { write(t, dir, "d/e/f.txt", "f\n"); write(t, dir, "d/top.txt", "top\n") },
		func() { os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "g")) },
		func() { write(t, dir, "g/e/f.txt", "edited where it went\n") },
		func() { write(t, dir, "g/top.txt", "edited again\n"); write(t, dir, "g/e/new.txt", "new\n") },
		func() {
			os.Rename(filepath.Join(dir, "g"), filepath.Join(dir, "d"))
			os.MkdirAll(filepath.Join(dir, "g", "e"), 0o755)
		},
		func() { write(t, dir, "d/e/f.txt", "edited back home\n"); write(t, dir, "g/e/other.txt", "other\n") },
		func() { os.Rename(filepath.Join(dir, "d", "e"), filepath.Join(dir, "e2")) },
		func() { write(t, dir, "e2/f.txt", "edited once more\n") },
	)
	if s.watch == nil {
		t.Fatal("the store never watched")
	}
}

// The repository's .git/info/exclude is part of what git ignores: a file
// it no longer excludes is in the next checkpoint, as in a full read's.
func TestAWatchedStoreSeesTheRepositorysExcludeChange(t *testing.T) {
	dir := repo(t)
	write(t, dir, ".git/info/exclude", "notes.txt\n")
	write(t, dir, "notes.txt", "the person's notes\n")
	takeAfter(t, dir, Options{Watch: true},
		func() { write(t, dir, ".git/info/exclude", "# nothing\n") },
		func() {
			write(t, dir, ".git/info/exclude", "# nothing\nmore.txt\n")
			write(t, dir, "more.txt", "more\n")
		},
	)
}

// A file a session's checkpoints held and that leaves the view later
// (git ignores it, or a nested repository is made around it) leaves the
// checkpoints, as a fresh read leaves it out.
func TestAFileLeavingTheViewLeavesTheCheckpoints(t *testing.T) {
	for _, watch := range []bool{false, true} {
		dir := repo(t)
		write(t, dir, "notes.txt", "the person's notes\n")
		write(t, dir, "n/a.txt", "a\n")
		takeAfter(t, dir, Options{Watch: watch},
			func() { write(t, dir, ".gitignore", "build/\n*.log\nnotes.txt\n") },
			func() { run(t, filepath.Join(dir, "n"), "git", "init", "-q") },
			func() { write(t, dir, "n/a.txt", "changed in the nested repository\n") },
		)
	}
}

// A directory ignored as the watch began and no longer ignored is watched
// from then on: an edit in it is in the next checkpoint.
func TestAWatchedStoreWatchesADirectoryNoLongerIgnored(t *testing.T) {
	dir := repo(t)
	takeAfter(t, dir, Options{Watch: true},
		func() { write(t, dir, ".gitignore", "*.log\n") },
		func() { write(t, dir, "build/out.bin", "rebuilt\n"); write(t, dir, "build/new.bin", "new\n") },
	)
}

// A session in a directory beneath the repository's top level is under
// the .gitignore files above it too: a change of them is seen.
func TestAWatchedStoreInASubdirectorySeesTheIgnoreRulesAboveIt(t *testing.T) {
	top := repo(t)
	write(t, top, ".gitignore", "build/\n*.log\nsub/notes.txt\n")
	write(t, top, "sub/notes.txt", "the person's notes\n")
	dir := filepath.Join(top, "sub")
	takeAfter(t, dir, Options{Watch: true},
		func() { write(t, top, ".gitignore", "build/\n*.log\n") },
		func() {
			write(t, top, "outside.txt", "above the working directory\n")
			write(t, dir, "inside.txt", "in it\n")
		},
		func() { os.Chmod(dir, 0o700) },
	)
}

// Two stores of the project watch the same directory of it (two sessions
// of an editor's process, two processes): each one's barrier waits for its
// own notification, and each checkpoint holds the changes made before it.
func TestTwoWatchesOfAProjectEachWaitForTheirOwnBarrier(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	root := t.TempDir()
	var stores []*Store
	for range 2 {
		s, err := Open(ctx, root, dir, Options{Watch: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	for i := range 6 {
		for j, s := range stores {
			write(t, dir, "a.txt", fmt.Sprintf("change %d of store %d\n", i, j))
			snap, err := s.Take(ctx, fmt.Sprintf("s%d", j), fmt.Sprintf("p%d", i))
			if err != nil {
				t.Fatal(err)
			}
			if want, fs := freshRead(t, dir); snap.Tree != want {
				t.Fatalf("store %d, change %d: the checkpoint holds\n%s\na fresh read\n%s", j, i, listing(t, s, snap.Tree), listing(t, fs, want))
			}
		}
	}
}
