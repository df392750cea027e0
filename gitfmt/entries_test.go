package gitfmt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// lsStage is git ls-files --stage without the stage: mode, id and path a
// line, as ReadEntries's entries print.
func lsStage(ents []Entry) string {
	var b strings.Builder
	for _, e := range ents {
		fmt.Fprintf(&b, "%06o %s\t%s\n", e.Mode, e.ID, e.Path)
	}
	return b.String()
}

// A user's index is read as git lists it, in each version git writes,
// with the flags a user's commands set and a gitlink.
func TestAUsersIndexIsReadAsGitListsIt(t *testing.T) {
	for _, c := range []struct {
		name string
		args [][]string
	}{
		{"version 2", nil},
		{"version 3, skip-worktree", [][]string{{"update-index", "--skip-worktree", "a/x.go"}}},
		{"version 3, intent to add", [][]string{{"add", "-N", "later.txt"}}},
		{"version 4", [][]string{{"update-index", "--index-version", "4"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repo(t, files)
			write(t, dir, "later.txt", "l\n", 0o644)
			git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",vendor/sub")
			for _, a := range c.args {
				git(t, dir, a...)
			}
			ents, err := ReadEntries(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			for _, line := range strings.Split(git(t, dir, "ls-files", "--stage"), "\n") {
				meta, path, _ := strings.Cut(line, "\t")
				f := strings.Fields(meta)
				fmt.Fprintf(&want, "%s %s\t%s\n", f[0], f[1], path)
			}
			if got := lsStage(ents); got != want.String() {
				t.Errorf("read\n%s\ngit lists\n%s", got, want.String())
			}
		})
	}
	dir := repo(t, files)
	git(t, dir, "update-index", "--split-index")
	if _, err := ReadEntries(filepath.Join(dir, ".git", "index")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a split index: %v, want ErrUnsupported", err)
	}
}

func FuzzParseEntries(f *testing.F) {
	addIndexSeeds(f, []string{"update-index", "--index-version", "2"})
	addIndexSeeds(f, []string{"update-index", "--index-version", "4"})
	f.Fuzz(func(t *testing.T, b []byte) {
		parseEntries(b) // an error or entries, never a panic or a hang
	})
}
