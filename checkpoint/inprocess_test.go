package checkpoint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A store writes its index and trees in process where it can: the trees
// are git's (takeAfter compares each with git's fresh read), and what
// changed between two of them is what git diff-tree says.
func TestWhatChangedBetweenCheckpointsIsWhatGitSays(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{Watch: true})
	t.Cleanup(s.Close)
	if !s.inProcess() {
		t.Skip("no index written in process here")
	}
	var first string
	for i, step := range []func(){
		func() {},
		func() { write(t, dir, "a.txt", "changed\n") },
		func() { write(t, dir, "new/c.txt", "new\n"); os.Remove(filepath.Join(dir, "sub", "b.txt")) },
		func() { os.Chmod(filepath.Join(dir, "a.txt"), 0o755); write(t, dir, "build/more.bin", "ignored\n") },
		func() { write(t, dir, "a.txt", "one\ntwo\n"); os.Chmod(filepath.Join(dir, "a.txt"), 0o644) },
	} {
		step()
		snap, err := s.Take(ctx, "s", "p"+string(rune('0'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = snap.Tree
			continue
		}
		// As a turn asks: the prompt's checkpoint against the last.
		got, ok := s.changedInProcess(first, snap.Tree)
		if !ok {
			t.Fatalf("step %d: the trees are not remembered", i)
		}
		want, err := s.changedByGit(ctx, first, snap.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("step %d: changed %q in process, git says %q", i, got, want)
		}
	}
}

// A file changed again within the tick of the file system's clock in
// which its checkpoint read it keeps its time and size; its entry is
// marked so that the next process's checkpoint (which compares times and
// sizes through git) reads its content again, though git trusts an entry
// older than the index file.
func TestAFileChangedInTheSameTickAsItsCheckpointIsReadAgain(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	root := t.TempDir()
	first, err := Open(ctx, root, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !first.inProcess() {
		t.Skip("no index written in process here")
	}
	// A tick a second long (a coarse clock; a file system of seconds),
	// whose time is before the index file's.
	was := racyWindow
	racyWindow = time.Hour
	t.Cleanup(func() { racyWindow = was })
	tick := time.Now().Add(-time.Second).Truncate(time.Second)
	p := filepath.Join(dir, "a.txt")
	os.Chtimes(p, tick, tick)
	before, err := first.Take(ctx, "s", "p0")
	if err != nil {
		t.Fatal(err)
	}
	rewrittenUnseen(t, root, dir, before.Tree, tick)
}

// rewrittenUnseen rewrites a.txt in dir with the same size and time
// mtime, as a change its stat cannot show, then takes the next process's
// checkpoint of session s (store root), which must hold the change:
// another tree than before, the one a fresh read takes.
func rewrittenUnseen(t *testing.T, root, dir, before string, mtime time.Time) {
	t.Helper()
	ctx := context.Background()
	write(t, dir, "a.txt", "owt\neno\n") // the same size
	os.Chtimes(filepath.Join(dir, "a.txt"), mtime, mtime)
	next, err := Open(ctx, root, dir, Options{}) // the next process
	if err != nil {
		t.Fatal(err)
	}
	after, err := next.Take(ctx, "s", "p1")
	if err != nil {
		t.Fatal(err)
	}
	if after.Tree == before {
		t.Fatal("the change the file's stat cannot show is not in the next checkpoint")
	}
	sameAsFreshRead(t, next, dir, after.Tree, "the next checkpoint")
}

// An index the store does not write in process (version 4: a user's
// index.version or feature.manyFiles) is left to git, checkpoint after
// checkpoint.
func TestAnIndexGitWroteInAnotherVersionIsLeftToGit(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	if _, err := s.Take(ctx, "s", "p0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.git(s.indexOf("s")).Run(ctx, "update-index", "--index-version", "4"); err != nil {
		t.Fatal(err)
	}
	if s.readIndex(s.indexOf("s")) != nil {
		t.Fatal("an index of version 4 read in process")
	}
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "new.txt", "new\n")
	snap, err := s.Take(ctx, "s", "p1")
	if err != nil {
		t.Fatal(err)
	}
	sameAsFreshRead(t, s, dir, snap.Tree, "the checkpoint")
}

// In a project with sessions, a new process's store starts its watch as
// it opens (Warm), and the first prompt's checkpoint of a new session
// (its index seeded from the last one) uses what that listing said of the
// index: an entry git now ignores still leaves the checkpoint.
func TestTheWatchStartedAsTheStoreOpensServesTheFirstCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	root := t.TempDir()
	write(t, dir, "keep.tmp", "held, then ignored\n")
	first, err := Open(ctx, root, dir, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Take(ctx, "a", "p0"); err != nil {
		t.Fatal(err)
	}
	first.Close()
	write(t, dir, ".gitignore", "build/\n*.log\n*.tmp\n")

	next, err := Open(ctx, root, dir, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Close)
	next.Warm(ctx)()
	if next.watch == nil || next.pre == nil {
		t.Fatalf("the store did not start its watch as it opened (watch %v, listing kept %v)", next.watch != nil, next.pre != nil)
	}
	snap, err := next.Take(ctx, "b", "p0")
	if err != nil {
		t.Fatal(err)
	}
	if next.pre != nil {
		t.Error("the first checkpoint did not use the listing of the watch's start")
	}
	sameAsFreshRead(t, next, dir, snap.Tree, "the checkpoint")
	write(t, dir, "a.txt", "changed after\n")
	snap, err = next.Take(ctx, "b", "p1")
	if err != nil {
		t.Fatal(err)
	}
	sameAsFreshRead(t, next, dir, snap.Tree, "the next checkpoint")
}

// Git compares an entry's times in whole seconds: a file read more than
// the racy window after its time, but within the same second, and changed
// again later in that second (the same size, in place) keeps the seconds
// and size its entry holds. Its entry is marked, so that the next
// process's checkpoint, which compares through git, reads it again.
func TestAFileChangedLaterInTheSecondItWasReadInIsReadAgain(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	root := t.TempDir()
	first, err := Open(ctx, root, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !first.inProcess() {
		t.Skip("no index written in process here")
	}
	// The ctime, which a test cannot set, is left out of git's compare.
	if _, err := first.git("").Run(ctx, "config", "core.trustCtime", "false"); err != nil {
		t.Fatal(err)
	}
	// The file's time an hour ago (well before the index file's), read
	// half a second later, within the same second.
	second := time.Now().Add(-time.Hour).Truncate(time.Second)
	written := second.Add(100 * time.Millisecond)
	was := readTime
	readTime = func() time.Time { return written.Add(500 * time.Millisecond) }
	t.Cleanup(func() { readTime = was })
	p := filepath.Join(dir, "a.txt")
	os.Chtimes(p, written, written)
	before, err := first.Take(ctx, "s", "p0")
	if err != nil {
		t.Fatal(err)
	}
	// Later in that second: git, comparing whole seconds, sees no
	// change.
	rewrittenUnseen(t, root, dir, before.Tree, second.Add(800*time.Millisecond))
}

// After a gc in the store (a person's, or a tool's), the content of the
// files that did not change is in a pack, which gitfmt does not read: the
// session's next checkpoint still reads only what changed (git writes
// its tree), not every file again as for an index naming what is gone.
func TestACheckpointAfterAGcInTheStoreReadsOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	if !s.inProcess() {
		t.Skip("no index written in process here")
	}
	if _, err := s.Take(ctx, "s", "p0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.git("").Run(ctx, "gc", "--quiet"); err != nil {
		t.Fatal(err)
	}
	unchanged, err := s.git("").Run(ctx, "hash-object", "--", filepath.Join(dir, "sub", "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	unchanged = strings.TrimSpace(unchanged)
	loose := filepath.Join(s.gitDir, "objects", unchanged[:2], unchanged[2:])
	if _, err := os.Lstat(loose); err == nil {
		t.Fatal("the gc left the content of sub/b.txt loose")
	}
	write(t, dir, "a.txt", "changed\n")
	snap, err := s.Take(ctx, "s", "p1")
	if err != nil {
		t.Fatal(err)
	}
	sameAsFreshRead(t, s, dir, snap.Tree, "the checkpoint")
	if _, err := os.Lstat(loose); err == nil {
		t.Error("sub/b.txt, unchanged since the gc, was read and stored again")
	}
}

// A new session's index starts as the project's latest (a hard link to
// it): the new session's checkpoints never change the index it came from.
func TestASeededIndexLeavesTheOneItCameFrom(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	if _, err := s.Take(ctx, "a", "p0"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.indexOf("a"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "changed in session b\n")
	write(t, dir, "new.txt", "new in session b\n")
	snap, err := s.Take(ctx, "b", "p0")
	if err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(s.indexOf("a")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("session a's index changed with session b's checkpoint (%v)", err)
	}
	sameAsFreshRead(t, s, dir, snap.Tree, "session b's checkpoint")
}

// TakeChanged reads again only the paths it is given: a file written
// there is in the checkpoint, one removed is gone, one git ignores stays
// out; a change elsewhere (not named) waits for the next full read.
func TestACheckpointOfKnownChangesReadsOnlyThem(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s := open(t, dir, Options{})
	before, err := s.Take(ctx, "s", "p0")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "written by a tool\n")
	write(t, dir, "new.txt", "made by a tool\n")
	write(t, dir, "build/made.bin", "ignored\n")
	write(t, dir, "sub/b.txt", "changed by someone else\n")
	snap, err := s.TakeChanged(ctx, "s", "p1", []string{"a.txt", "new.txt", "build/made.bin", "gone.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got := listing(t, s, snap.Tree)
	was := listing(t, s, before.Tree)
	line := func(listing, path string) string {
		for _, l := range strings.Split(listing, "\n") {
			if strings.HasSuffix(l, "\t"+path) {
				return l
			}
		}
		return ""
	}
	if line(got, "a.txt") == line(was, "a.txt") || line(got, "new.txt") == "" {
		t.Errorf("the files named are not read again:\n%s", got)
	}
	if line(got, "build/made.bin") != "" {
		t.Errorf("a file git ignores is in the checkpoint:\n%s", got)
	}
	if line(got, "sub/b.txt") != line(was, "sub/b.txt") {
		t.Errorf("a file not named was read again:\n%s", got)
	}
	changed, err := s.Changed(ctx, before.Tree, snap.Tree)
	if err != nil || !slices.Equal(changed, []string{"a.txt", "new.txt"}) {
		t.Errorf("changed %q (%v), want a.txt and new.txt", changed, err)
	}
	// The next full read takes what was not named.
	os.Remove(filepath.Join(dir, "new.txt"))
	if snap, err = s.TakeChanged(ctx, "s", "p2", []string{"new.txt"}); err != nil {
		t.Fatal(err)
	}
	if line(listing(t, s, snap.Tree), "new.txt") != "" {
		t.Error("a file removed is still in the checkpoint")
	}
	full, err := s.Take(ctx, "s", "p3")
	if err != nil {
		t.Fatal(err)
	}
	sameAsFreshRead(t, s, dir, full.Tree, "the full read after")
}

// sameAsFreshRead fails the test when tree, which s took of dir (what
// names it in the message), is not the tree git's own fresh read takes.
func sameAsFreshRead(t *testing.T, s *Store, dir, tree, what string) {
	t.Helper()
	if want, fs := freshRead(t, dir); tree != want {
		t.Errorf("%s holds\n%s\na fresh read\n%s", what, listing(t, s, tree), listing(t, fs, want))
	}
}
