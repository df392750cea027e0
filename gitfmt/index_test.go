package gitfmt

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo makes a git repository in a temporary directory with files (path:
// content; a path ending in "*" is made executable, without the star) and
// adds them to its index.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for p, c := range files {
		mode := os.FileMode(0o644)
		if rest, ok := strings.CutSuffix(p, "*"); ok {
			p, mode = rest, 0o755
		}
		write(t, dir, p, c, mode)
	}
	git(t, dir, "add", "-A")
	return dir
}

func write(t *testing.T, dir, p, content string, mode os.FileMode) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// git runs git in dir with the given environment additions and returns
// its trimmed output, failing the test when it fails.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitEnv(t, dir, nil, args...)
}

func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// stage sets p's entry in x from the file in dir, storing its content in
// objs, as git update-index --add would.
func stage(t *testing.T, x *Index, objs Objects, dir, p string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	if err != nil {
		t.Fatal(err)
	}
	mode, ok := ModeOf(fi)
	st, sok := StatOf(fi)
	if !ok || !sok {
		t.Skip("no git stat here")
	}
	var data []byte
	if mode == ModeSymlink {
		target, err := os.Readlink(full)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(target)
	} else if data, err = os.ReadFile(full); err != nil {
		t.Fatal(err)
	}
	id, err := objs.Write("blob", data)
	if err != nil {
		t.Fatal(err)
	}
	x.Apply([]Entry{{Path: p, Mode: mode, ID: id, Stat: st}}, nil)
}

var files = map[string]string{
	"README.md":         "# r\n",
	"a-b":               "dash\n",
	"a.c":               "dot\n",
	"a/x.go":            "package a\n",
	"a/deep/er/y.go":    "package er\n",
	"run.sh*":           "#!/bin/sh\n",
	"z/only":            "",
	"name with space/f": "s\n",
}

// The trees written in process are the ones git writes from the same
// index, git reads the index written back (entries, stat, cache tree)
// and finds nothing changed, and git fsck finds every object sound.
func TestTheTreeAndIndexWrittenInProcessAreGits(t *testing.T) {
	dir := repo(t, files)
	if err := os.Symlink("a/x.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "link")
	index := filepath.Join(dir, ".git", "index")
	objs := Objects{Dir: filepath.Join(dir, ".git", "objects")}

	x, err := ReadIndex(index)
	if err != nil {
		t.Fatal(err)
	}
	id, err := x.WriteTree(objs)
	if err != nil {
		t.Fatal(err)
	}
	// Git writes the tree from a copy: git write-tree writes the index
	// too, and WriteFile writes only over the file it read.
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	gits := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(gits, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := gitEnv(t, dir, []string{"GIT_INDEX_FILE=" + gits}, "write-tree")
	if id.String() != want {
		t.Fatalf("tree %s, git writes %s", id, want)
	}
	if err := x.WriteFile(index); err != nil {
		t.Fatal(err)
	}
	if out := git(t, dir, "diff-files", "--name-only"); out != "" {
		t.Errorf("git finds changed after the index was written back: %q", out)
	}
	if got := git(t, dir, "write-tree"); got != want {
		t.Errorf("git writes %s from the index written back, %s before", got, want)
	}

	// Changes: a file edited, one made executable, one new in a new
	// directory, a file that becomes a directory, one removed.
	write(t, dir, "a/x.go", "package a // changed\n", 0o644)
	os.Chmod(filepath.Join(dir, "README.md"), 0o755)
	write(t, dir, "new/dir/n.txt", "n\n", 0o644)
	os.Remove(filepath.Join(dir, "a-b"))
	write(t, dir, "a-b/inside", "now a directory\n", 0o644)
	os.Remove(filepath.Join(dir, "z", "only"))
	if x, err = ReadIndex(index); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/x.go", "README.md", "new/dir/n.txt", "a-b/inside"} {
		stage(t, x, objs, dir, p)
	}
	if _, ok := x.Find("a-b"); ok {
		t.Error("the file a directory replaced is still in the index")
	}
	x.Apply(nil, []string{"z/only"})
	id, err = x.WriteTree(objs)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.WriteFile(index); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "index")
	gitEnv(t, dir, []string{"GIT_INDEX_FILE=" + fresh}, "add", "-A")
	want = gitEnv(t, dir, []string{"GIT_INDEX_FILE=" + fresh}, "write-tree")
	if id.String() != want {
		t.Fatalf("tree after the changes %s, git writes %s", id, want)
	}
	// Every change is staged: nothing differs between the index and
	// the files, and nothing is left untracked.
	for _, line := range strings.Split(git(t, dir, "status", "--porcelain", "--untracked-files=all"), "\n") {
		if len(line) > 1 && line[1] != ' ' {
			t.Errorf("git status after the changes staged in process: %q", line)
		}
	}

	// The cache tree written is one git trusts: a change git stages now
	// gives the tree a fresh index gives.
	write(t, dir, "a/deep/er/y.go", "package er // git's change\n", 0o644)
	git(t, dir, "update-index", "a/deep/er/y.go")
	gitEnv(t, dir, []string{"GIT_INDEX_FILE=" + fresh}, "add", "-A")
	if got, want := git(t, dir, "write-tree"), gitEnv(t, dir, []string{"GIT_INDEX_FILE=" + fresh}, "write-tree"); got != want {
		t.Errorf("git writes %s through the cache tree written in process, %s from a fresh index", got, want)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

// A tree whose directories did not change is not built again: the cache
// tree git wrote gives it, and no object is written (nor its time set).
func TestUnchangedDirectoriesComeFromTheCacheTree(t *testing.T) {
	dir := repo(t, files)
	want := git(t, dir, "write-tree") // git writes the cache tree
	x, err := ReadIndex(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if x.tree == nil || x.tree.count != len(x.Entries) {
		t.Fatalf("the cache tree git wrote was not read: %+v", x.tree)
	}
	objs := Objects{Dir: filepath.Join(dir, ".git", "objects")}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	filepath.WalkDir(objs.Dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	id, err := x.WriteTree(objs)
	if err != nil || id.String() != want {
		t.Fatalf("WriteTree = %s, %v; git wrote %s", id, err, want)
	}
	filepath.WalkDir(objs.Dir, func(p string, d fs.DirEntry, err error) error {
		if fi, ierr := d.Info(); err == nil && ierr == nil && !d.IsDir() && !fi.ModTime().Equal(old) {
			t.Errorf("%s written for a tree the cache held", p)
		}
		return nil
	})
}

// An index naming a blob the store no longer has (its session forgotten,
// pruned) is refused, as git write-tree refuses it.
func TestATreeWithAMissingBlobIsRefused(t *testing.T) {
	dir := repo(t, files)
	x, err := ReadIndex(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	id := x.Entries[0].ID.String()
	if err := os.Remove(filepath.Join(dir, ".git", "objects", id[:2], id[2:])); err != nil {
		t.Fatal(err)
	}
	if _, err := x.WriteTree(Objects{Dir: filepath.Join(dir, ".git", "objects")}); !errors.Is(err, ErrMissing) {
		t.Errorf("WriteTree = %v, want ErrMissing", err)
	}
}

// What this package does not know, it refuses with ErrUnsupported (git
// then does the work); a damaged index is an error, never a panic.
func TestIndexesLeftToGit(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version 4", []string{"update-index", "--index-version", "4"}},
		{"split", []string{"update-index", "--split-index"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repo(t, files)
			git(t, dir, c.args...)
			if _, err := ReadIndex(filepath.Join(dir, ".git", "index")); !errors.Is(err, ErrUnsupported) {
				t.Errorf("ReadIndex = %v, want ErrUnsupported", err)
			}
		})
	}
	dir := repo(t, files)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(b)
	bad[40] ^= 1
	if _, err := parseIndex(bad); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("a damaged index read as %v", err)
	}
	if _, err := parseIndex(b[:len(b)/2]); err == nil {
		t.Error("half an index read without an error")
	}
}

// addIndexSeeds adds to f's corpus the index git writes of a small tree
// after args (git commands run after init and add), and the same without
// its checksum's protection, so the fuzzer reaches the entries and the
// extensions.
func addIndexSeeds(f *testing.F, args ...[]string) {
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "d", "e"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "e", "g"), []byte("y"), 0o644)
	for _, a := range append([][]string{{"init", "-q"}, {"add", "-A"}}, args...) {
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		cmd.Run()
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
		f.Add(b)
		z := bytes.Clone(b)
		copy(z[len(z)-20:], make([]byte, 20))
		f.Add(z)
	}
}

func FuzzParseIndex(f *testing.F) {
	addIndexSeeds(f, []string{"write-tree"}) // with its cache tree
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := parseIndex(b)
		if err != nil {
			return
		}
		// What was read is written and read back the same.
		y, err := parseIndex(x.Bytes())
		if err != nil || len(y.Entries) != len(x.Entries) {
			t.Fatalf("written back: %v, %d entries of %d", err, len(y.Entries), len(x.Entries))
		}
	})
}

// Apply is git update-index --add --replace of set, then --force-remove
// of remove.
func TestApplyReplacesWhatCannotStandBeside(t *testing.T) {
	paths := func(x *Index) string {
		var ps []string
		for _, e := range x.Entries {
			ps = append(ps, e.Path+"="+e.ID.String()[:1])
		}
		return strings.Join(ps, " ")
	}
	id := func(c byte) ID { var i ID; i[0] = c << 4; return i }
	for _, c := range []struct {
		name   string
		set    []Entry
		remove []string
		want   string
	}{
		{"a file where a directory was", []Entry{{Path: "d", ID: id(1)}}, nil, "a.c=0 d=1 z=0"},
		{"a directory where a file was", []Entry{{Path: "z/y", ID: id(2)}}, nil, "a.c=0 d/e=0 d/f/g=0 z/y=2"},
		{"the last setting wins", []Entry{{Path: "new", ID: id(3)}, {Path: "new", ID: id(4)}}, nil, "a.c=0 d/e=0 d/f/g=0 new=4 z=0"},
		{"set and removed", []Entry{{Path: "a.c", ID: id(5)}}, []string{"a.c", "d/e"}, "d/f/g=0 z=0"},
		{"kept in git's order", []Entry{{Path: "a-b", ID: id(6)}, {Path: "d/f.x", ID: id(7)}, {Path: "a", ID: id(8)}}, nil, "a=8 a-b=6 a.c=0 d/e=0 d/f.x=7 d/f/g=0 z=0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := &Index{Entries: []Entry{{Path: "a.c"}, {Path: "d/e"}, {Path: "d/f/g"}, {Path: "z"}}}
			x.Apply(c.set, c.remove)
			if got := paths(x); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A file and a path beneath it set at once (a file the checkpoint read
// that became a directory while it read the other) cannot both stay: as
// git update-index --add --replace, the later setting replaces the
// earlier, and the tree has no name twice.
func TestApplyOfAFileAndAPathBeneathItKeepsTheLastAsGitDoes(t *testing.T) {
	for _, order := range [][]string{{"q", "q/b"}, {"q/b", "q"}, {"q/b", "q", "q/b/c"}, {"a", "a/x.go"}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			dir := repo(t, files)
			index := filepath.Join(dir, ".git", "index")
			objs := Objects{Dir: filepath.Join(dir, ".git", "objects")}
			blob, err := objs.Write("blob", []byte("x\n"))
			if err != nil {
				t.Fatal(err)
			}
			x, err := ReadIndex(index)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"update-index", "--add", "--replace"}
			var set []Entry
			for _, p := range order {
				args = append(args, "--cacheinfo", "100644,"+blob.String()+","+p)
				set = append(set, Entry{Path: p, Mode: ModeFile, ID: blob})
			}
			gits := filepath.Join(t.TempDir(), "index")
			b, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gits, b, 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{"GIT_INDEX_FILE=" + gits}
			gitEnv(t, dir, env, args...)
			want := gitEnv(t, dir, env, "ls-files", "-s")
			x.Apply(set, nil)
			if err := x.WriteFile(index); err != nil {
				t.Fatal(err)
			}
			if got := git(t, dir, "ls-files", "-s"); got != want {
				t.Errorf("applied in process:\n%s\ngit:\n%s", got, want)
			}
		})
	}
}

// An index another process wrote since this one read it (git, or the
// same session's checkpoint in another process) is not overwritten with
// what was read before: its entries would be lost, as git's lock, held
// from its read to its write, never loses them.
func TestAnIndexWrittenSinceItWasReadIsNotOverwritten(t *testing.T) {
	dir := repo(t, files)
	index := filepath.Join(dir, ".git", "index")
	objs := Objects{Dir: filepath.Join(dir, ".git", "objects")}
	x, err := ReadIndex(index)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "theirs", "another process's\n", 0o644)
	git(t, dir, "update-index", "--add", "theirs")
	write(t, dir, "ours", "this process's\n", 0o644)
	stage(t, x, objs, dir, "ours")
	if err := x.WriteFile(index); err == nil {
		t.Error("an index written since it was read was overwritten")
	}
	if out := git(t, dir, "ls-files", "theirs"); out != "theirs" {
		t.Errorf("the other process's entry is gone: ls-files %q", out)
	}
	if _, err := os.Lstat(index + ".lock"); err == nil {
		t.Error("the lock was left behind")
	}
	// Read again, it is written.
	if x, err = ReadIndex(index); err != nil {
		t.Fatal(err)
	}
	stage(t, x, objs, dir, "ours")
	if err := x.WriteFile(index); err != nil {
		t.Fatal(err)
	}
	stage(t, x, objs, dir, "README.md")
	if err := x.WriteFile(index); err != nil {
		t.Errorf("an index written twice by the same process: %v", err)
	}
	if out := git(t, dir, "ls-files", "theirs", "ours"); out != "ours\ntheirs" {
		t.Errorf("ls-files %q", out)
	}
}
