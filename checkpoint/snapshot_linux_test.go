//go:build linux

package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// File names git and a shell find awkward go in and come back out.
func TestAwkwardFileNamesAreCheckpointedAndRestored(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{Watch: true})
	defer s.Close()
	s.Take(ctx, "s", "p0")
	before, err := s.Take(ctx, "s", "p1")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"new\nline", `"quoted"`, "-leading-dash", "--", "not utf-8 \xff\xfe", strings.Repeat("long", 60),
		" space ", `back\slash`, ":(literal)magic", "*star?", "[brackets]", "tab\there"}
	for _, n := range names {
		write(t, dir, "odd/"+n, n+"\n")
	}
	os.Symlink("loop", filepath.Join(dir, "loop"))
	after, err := s.Take(ctx, "s", "p2")
	if err != nil {
		t.Fatal(err)
	}
	if want, fs := freshRead(t, dir); after.Tree != want {
		t.Fatalf("the watched checkpoint holds\n%s\na fresh read\n%s", listing(t, s, after.Tree), listing(t, fs, want))
	}
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	for _, to := range []string{before.Tree, after.Tree} {
		now, err := s.Take(ctx, "s", "now")
		if err != nil {
			t.Fatal(err)
		}
		plan, err := s.PlanRestore(ctx, now.Tree, to, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(ctx, root, plan, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		if got := read(t, dir, "odd/"+n); got != n+"\n" {
			t.Errorf("%q = %q after going back and forth", n, got)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "loop")); err != nil || target != "loop" {
		t.Errorf("the looping link: %q, %v", target, err)
	}
}
