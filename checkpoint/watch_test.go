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
