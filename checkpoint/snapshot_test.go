package checkpoint

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// freshRead is the checkpoint of dir a new store takes: every file read,
// no index or watch of a session before it, each step through git (git
// update-index and write-tree, not the index and trees written in
// process), so that what a store takes in process is compared with git's
// own. It returns the tree and the store that holds it.
func freshRead(t *testing.T, dir string) (string, *Store) {
	t.Helper()
	s := open(t, dir, Options{})
	s.formatOnce.Do(func() {}) // never in process
	snap, err := s.Take(context.Background(), "fresh", "fresh")
	if err != nil {
		t.Fatalf("a fresh read: %v", err)
	}
	return snap.Tree, s
}

// listing is tree's files with their modes and blobs, for a message.
func listing(t *testing.T, s *Store, tree string) string {
	t.Helper()
	out, err := s.git("").Run(context.Background(), "ls-tree", "-r", tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// takeAfter runs each step and takes a checkpoint after it (the store's
// session already has two, so a watched store reads only what its watch
// saw), which must be the tree a fresh read takes.
func takeAfter(t *testing.T, dir string, opt Options, steps ...func()) *Store {
	t.Helper()
	ctx := context.Background()
	s := open(t, dir, opt)
	t.Cleanup(s.Close)
	for _, name := range []string{"p0", "p1"} {
		if _, err := s.Take(ctx, "s", name); err != nil {
			t.Fatal(err)
		}
	}
	for i, step := range steps {
		step()
		snap, err := s.Take(ctx, "s", "q"+string(rune('a'+i)))
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if want, fs := freshRead(t, dir); snap.Tree != want {
			t.Fatalf("step %d: the checkpoint holds\n%s\na fresh read\n%s", i+1, listing(t, s, snap.Tree), listing(t, fs, want))
		}
	}
	return s
}

func TestAFileReplacedByADirectoryAndBackIsCheckpointed(t *testing.T) {
	for _, watch := range []bool{false, true} {
		dir := repo(t)
		takeAfter(t, dir, Options{Watch: watch},
			func() { os.Remove(filepath.Join(dir, "a.txt")); write(t, dir, "a.txt/inside.txt", "now a directory\n") },
			func() { os.RemoveAll(filepath.Join(dir, "sub")); write(t, dir, "sub", "now a file\n") },
			func() { os.RemoveAll(filepath.Join(dir, "a.txt")); write(t, dir, "a.txt", "a file again\n") },
			func() { os.Remove(filepath.Join(dir, "sub")); os.Mkdir(filepath.Join(dir, "sub"), 0o755) }, // an empty directory
		)
	}
}

func TestASymbolicLinkInPlaceOfADirectoryIsCheckpointed(t *testing.T) {
	for _, watch := range []bool{false, true} {
		dir := repo(t)
		elsewhere := t.TempDir()
		write(t, elsewhere, "b.txt", "not the project's\n")
		takeAfter(t, dir, Options{Watch: watch},
			func() { os.RemoveAll(filepath.Join(dir, "sub")); os.Symlink(elsewhere, filepath.Join(dir, "sub")) },
			func() { write(t, elsewhere, "b.txt", "changed elsewhere\n") },
			func() { os.Remove(filepath.Join(dir, "sub")); write(t, dir, "sub/b.txt", "back\n") },
		)
	}
}

// A new session's index is copied from the project's latest one; when
// that session is forgotten meanwhile (the sweep as a session opens), the
// content only it held is pruned, and the copy names blobs the store no
// longer has. The new session's checkpoints must still be taken.
func TestASessionSeededFromAForgottenOneStillTakesCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	if _, err := s.Take(ctx, "old", "p1"); err != nil {
		t.Fatal(err)
	}
	// The new session's index seeded from old's, as seedIndex does.
	src, err := os.Open(s.indexOf("old"))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(s.indexOf("new"))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	// Then old is forgotten, its content older than Forget's hour.
	past := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(filepath.Join(s.gitDir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	if err := s.Forget(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Take(ctx, "new", "p1")
	if err != nil {
		t.Fatalf("the new session's checkpoint: %v", err)
	}
	write(t, dir, "a.txt", "changed\n")
	now, err := s.Take(ctx, "new", "p2")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.PlanRestore(ctx, now.Tree, snap.Tree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if _, err := s.Apply(ctx, root, plan, false); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "a.txt") != "one\ntwo\n" {
		t.Errorf("a.txt = %q after restoring the new session's checkpoint", read(t, dir, "a.txt"))
	}
}

// A new session copies the project's newest index; another session's copy
// being written at that moment (a subagent starting beside another) is
// no index to start from.
func TestANewSessionDoesNotStartFromAnotherSessionsIndexBeingCopied(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	if _, err := s.Take(ctx, "first", "p1"); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(filepath.Dir(s.indexOf("first")), ".seed-123")
	if err := os.WriteFile(half, []byte("DIRC\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(half, later, later)
	snap, err := s.Take(ctx, "second", "p1")
	if err != nil {
		t.Fatalf("the second session's first checkpoint: %v", err)
	}
	if want, _ := freshRead(t, dir); snap.Tree != want {
		t.Errorf("the second session's checkpoint holds\n%s", listing(t, s, snap.Tree))
	}
}
