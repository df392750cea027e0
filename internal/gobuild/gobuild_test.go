//go:build linux || darwin

package gobuild

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// hello writes a module whose program prints msg into root.
func hello(t *testing.T, root, msg string) {
	t.Helper()
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(" + `"` + msg + `"` + ") }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// output runs a binary and returns what it printed.
func output(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return string(out)
}

// inode is the inode number of a file.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Sys().(*syscall.Stat_t).Ino)
}

// TestSharedBuildsOnceAndNeverReusesAStaleBinary: two callers at once get
// the same build; a third finds it current and the go command leaves it be;
// after a change of the sources the next caller gets a new build, while the
// private links handed out before still run the old one.
func TestSharedBuildsOnceAndNeverReusesAStaleBinary(t *testing.T) {
	root := t.TempDir()
	hello(t, root, "one")
	shared := sharedDir(root, ".", Default)
	t.Cleanup(func() { os.RemoveAll(shared) })

	dirs := []string{t.TempDir(), t.TempDir()}
	bins := make([]string, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() { bins[i], errs[i] = Shared(context.Background(), root, ".", Default, dir, "hello") })
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got := output(t, bins[i]); got != "one" {
			t.Errorf("caller %d runs a binary that prints %q", i, got)
		}
	}
	built := inode(t, filepath.Join(shared, "hello"))
	if inode(t, bins[0]) != built || inode(t, bins[1]) != built {
		t.Errorf("the private binaries are not links to the shared build")
	}

	again, err := Shared(context.Background(), root, ".", Default, t.TempDir(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if inode(t, filepath.Join(shared, "hello")) != built || inode(t, again) != built {
		t.Errorf("a current binary was built again")
	}

	hello(t, root, "two")
	fresh, err := Shared(context.Background(), root, ".", Default, t.TempDir(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if got := output(t, fresh); got != "two" {
		t.Errorf("after a change of the sources the binary prints %q, want two", got)
	}
	if got := output(t, bins[0]); got != "one" {
		t.Errorf("an earlier private binary changed with the rebuild: it prints %q", got)
	}
}

// TestSharedStopsWaitingWhenTheContextEnds: while another holds the lock,
// a caller whose context ends gets the context's error, and builds nothing.
func TestSharedStopsWaitingWhenTheContextEnds(t *testing.T) {
	root := t.TempDir()
	hello(t, root, "one")
	shared := sharedDir(root, ".", Default)
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	unlock, err := lock(context.Background(), filepath.Join(shared, "lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Shared(ctx, root, ".", Default, t.TempDir(), "hello")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for the lock") {
		t.Errorf("err %v, want the context's while waiting for the lock", err)
	}
	if _, err := os.Stat(filepath.Join(shared, "hello")); !os.IsNotExist(err) {
		t.Errorf("a binary was built while another held the lock: %v", err)
	}
}
