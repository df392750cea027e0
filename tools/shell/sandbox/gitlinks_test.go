package sandbox

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The gitlinks the guard watches are those git lists, whichever index
// version the person's git writes; an index read in process or, split,
// listed by git.
func TestTheGitlinksListedAreThoseOfTheIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, extra := range [][]string{nil, {"update-index", "--index-version", "4"}, {"update-index", "--split-index"}} {
		work := t.TempDir()
		run := func(args ...string) {
			t.Helper()
			cmd := exec.Command("git", append([]string{"-C", work}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		run("init", "-q")
		run("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",vendor/lib")
		run("update-index", "--add", "--cacheinfo", "100644,"+strings.Repeat("cd", 20)+",README")
		run("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ef", 20)+",sub")
		if extra != nil {
			run(extra...)
		}
		got := slices.Sorted(maps.Keys(listGitlinks(work)))
		if want := []string{"sub", "vendor/lib"}; !slices.Equal(got, want) {
			t.Errorf("%v: gitlinks %q, want %q", extra, got, want)
		}
	}
}
