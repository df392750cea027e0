package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a git repository with a few files and returns its path.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	write(t, dir, ".gitignore", "build/\n*.log\n")
	write(t, dir, "a.txt", "one\ntwo\n")
	write(t, dir, "sub/b.txt", "bee\n")
	write(t, dir, "build/out.bin", "ignored\n")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
	return dir
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

func open(t *testing.T, dir string, opt Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir(), dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRestoringACheckpointPutsBackEveryFileWhoeverChangedIt(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	cp, err := s.Take(ctx, "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "one\nTWO\nthree\n")                          // an edit
	run(t, dir, "sed", "-i", "s/bee/BEE/", "sub/b.txt")                  // a command
	write(t, dir, "new/c.txt", "created\n")                              // a new file
	write(t, dir, "build/out.bin", "rebuilt\n")                          // ignored: never touched
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o755); err != nil { // a mode change
		t.Fatal(err)
	}
	now, err := s.Take(ctx, "s1", "now")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.PlanRestore(ctx, now.Tree, cp.Tree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range plan.Changes {
		got = append(got, string(c.Action)+" "+c.Path)
	}
	want := []string{"modify a.txt", "delete new/c.txt", "modify sub/b.txt"}
	if !slices.Equal(got, want) {
		t.Fatalf("plan = %v, want %v", got, want)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := s.Apply(ctx, root, plan, false); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "a.txt") != "one\ntwo\n" || read(t, dir, "sub/b.txt") != "bee\n" || read(t, dir, "new/c.txt") != "<missing>" {
		t.Fatalf("not restored: %q %q %q", read(t, dir, "a.txt"), read(t, dir, "sub/b.txt"), read(t, dir, "new/c.txt"))
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the directory the turn made is still there: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o644 {
		t.Errorf("a.txt's mode is %v, want 0644", fi.Mode().Perm())
	}
	if read(t, dir, "build/out.bin") != "rebuilt\n" {
		t.Error("an ignored file was written")
	}
	if st := run(t, dir, "git", "status", "--porcelain"); st != "" {
		t.Errorf("git status after the restore:\n%s", st)
	}
	// Forward again: the later checkpoint is still there.
	back, err := s.Take(ctx, "s1", "back")
	if err != nil {
		t.Fatal(err)
	}
	plan, err = s.PlanRestore(ctx, back.Tree, now.Tree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, root, plan, false); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "new/c.txt") != "created\n" || read(t, dir, "a.txt") != "one\nTWO\nthree\n" {
		t.Fatal("rewinding forward did not restore the later state")
	}
}

func TestFilesChangedOutsideTheAgentAreKeptUnlessForced(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	cp, _ := s.Take(ctx, "s1", "p1")
	write(t, dir, "a.txt", "agent\n")
	write(t, dir, "sub/b.txt", "person\n")
	now, _ := s.Take(ctx, "s1", "now")
	plan, err := s.PlanRestore(ctx, now.Tree, cp.Tree, []string{"sub/b.txt"}, func(rel string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Kept) != 1 || plan.Kept[0].Path != "sub/b.txt" {
		t.Fatalf("kept = %+v", plan.Kept)
	}
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if _, err := s.Apply(ctx, root, plan, false); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "sub/b.txt") != "person\n" || read(t, dir, "a.txt") != "one\ntwo\n" {
		t.Fatal("the person's file was not kept, or the agent's not restored")
	}
	if _, err := s.Apply(ctx, root, plan, true); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "sub/b.txt") != "bee\n" {
		t.Fatal("forcing did not restore the person's file")
	}
}

func TestLargeFilesAreLeftOutAndNamed(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	write(t, dir, "big.dat", strings.Repeat("x", 2048))
	s := open(t, dir, Options{MaxFileBytes: 1024})
	cp, err := s.Take(ctx, "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Skipped) != 1 || cp.Skipped[0].Path != "big.dat" || cp.Skipped[0].Reason != "larger than 1 KiB" {
		t.Fatalf("skipped = %+v", cp.Skipped)
	}
}

func TestTheUsersRepositoryIsNotTouched(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	write(t, dir, "a.txt", "dirty\n")
	run(t, dir, "git", "stash", "-q")
	write(t, dir, "a.txt", "staged\n")
	run(t, dir, "git", "add", "a.txt")
	before := treeOf(t, filepath.Join(dir, ".git"))
	s := open(t, dir, Options{})
	cp, _ := s.Take(ctx, "s1", "p1")
	write(t, dir, "a.txt", "later\n")
	now, _ := s.Take(ctx, "s1", "p2")
	plan, _ := s.PlanRestore(ctx, now.Tree, cp.Tree, nil, nil)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if _, err := s.Apply(ctx, root, plan, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if after := treeOf(t, filepath.Join(dir, ".git")); after != before {
		t.Fatalf(".git changed:\nbefore %s\nafter  %s", before, after)
	}
}

// treeOf is every file under dir with its content, as one string.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		b.WriteString(p + "=" + string(data) + "\n")
		return nil
	})
	return b.String()
}

func TestExcludedFilesAreNeverInACheckpoint(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	write(t, dir, ".ssh/id_ed25519", "secret\n")
	s := open(t, dir, Options{Exclude: func(rel string) bool { return strings.HasPrefix(rel, ".ssh/") }})
	cp, err := s.Take(ctx, "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	names, err := s.git("").Run(ctx, "ls-tree", "-r", "--name-only", cp.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(names, "id_ed25519") || !strings.Contains(names, "a.txt") {
		t.Fatalf("the checkpoint holds:\n%s", names)
	}
}

func TestADirectoryOutsideAnyRepositoryWithTooManyFilesIsRefused(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		write(t, dir, fmt.Sprintf("f%d.txt", i), "x\n")
	}
	s := open(t, dir, Options{MaxFiles: 3})
	if _, err := s.Take(context.Background(), "s1", "p1"); !errors.Is(err, ErrTooManyFiles) {
		t.Fatalf("Take = %v, want ErrTooManyFiles", err)
	}
}

// restore plans restoring tree over dir as it is now (outside: the paths
// changed outside the agent) and applies the plan, unforced.
func restore(t *testing.T, s *Store, dir, tree string, outside ...string) (Plan, error) {
	t.Helper()
	ctx := context.Background()
	now, err := s.Take(ctx, "s1", "now")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.PlanRestore(ctx, now.Tree, tree, outside, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = s.Apply(ctx, root, plan, false)
	return plan, err
}

func TestRestoringPutsBackAFileADirectoryReplaced(t *testing.T) {
	dir := repo(t)
	s := open(t, dir, Options{})
	cp, err := s.Take(context.Background(), "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	write(t, dir, "a.txt/deep/inside.txt", "the turn's\n")
	if _, err := restore(t, s, dir, cp.Tree); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "a.txt"); got != "one\ntwo\n" {
		t.Fatalf("a.txt = %q, want the checkpoint's file", got)
	}
}

// A directory the checkpoint had, which the model replaced with a link to
// a directory outside: the link goes, the directory comes back, and
// nothing is written where the link pointed.
func TestRestoringPutsBackADirectoryALinkReplacedWithoutWritingWhereItPointed(t *testing.T) {
	dir := repo(t)
	elsewhere := t.TempDir()
	write(t, elsewhere, "b.txt", "not the project's\n")
	s := open(t, dir, Options{})
	cp, err := s.Take(context.Background(), "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "sub"))
	if err := os.Symlink(elsewhere, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := restore(t, s, dir, cp.Tree); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "sub")); err != nil || !fi.IsDir() {
		t.Fatalf("sub is not a directory again: %v", err)
	}
	if read(t, dir, "sub/b.txt") != "bee\n" || read(t, elsewhere, "b.txt") != "not the project's\n" {
		t.Fatalf("sub/b.txt = %q, the file outside = %q", read(t, dir, "sub/b.txt"), read(t, elsewhere, "b.txt"))
	}
}

// What stands where a file comes back and that the restore may not
// remove stays: a file the person put in place of a directory (changed
// outside the agent), an ignored file in a directory that replaced a file.
func TestWhatStandsInTheWayOfARestoredFileIsKept(t *testing.T) {
	dir := repo(t)
	s := open(t, dir, Options{})
	cp, err := s.Take(context.Background(), "s1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "sub"))
	write(t, dir, "sub", "the person's file\n")
	os.Remove(filepath.Join(dir, "a.txt"))
	write(t, dir, "a.txt/made.txt", "the turn's\n")
	write(t, dir, "a.txt/debug.log", "ignored\n")
	plan, err := restore(t, s, dir, cp.Tree, "sub")
	if err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "sub") != "the person's file\n" || read(t, dir, "a.txt/debug.log") != "ignored\n" {
		t.Fatalf("sub = %q, a.txt/debug.log = %q", read(t, dir, "sub"), read(t, dir, "a.txt/debug.log"))
	}
	var kept, protected []string
	for _, c := range plan.Kept {
		kept = append(kept, c.Path)
	}
	for _, c := range plan.Protected {
		protected = append(protected, c.Path)
	}
	if !slices.Equal(kept, []string{"sub", "sub/b.txt"}) || !slices.Equal(protected, []string{"a.txt"}) {
		t.Errorf("kept %v, protected %v", kept, protected)
	}
}
