package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refsAndSessions takes a checkpoint in two sessions and returns what git
// says the store's refs are ("TREE REF" lines, sorted) and the sessions
// Sessions lists, sorted.
func refsAndSessions(t *testing.T, s *Store) (refs string, sessions []string) {
	t.Helper()
	ctx := context.Background()
	refs, err := s.git("").Run(ctx, "for-each-ref", "--format=%(objectname) %(refname)", "refs/agent/")
	if err != nil {
		t.Fatal(err)
	}
	if sessions, err = s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sessions)
	return refs, sessions
}

// Checkpoints are kept under refs git reads as its own, however the store
// writes them (as files, or through git when its config names another ref
// storage), and Sessions lists what git lists, packed refs included.
func TestTheRefsThatKeepCheckpointsAreGitsOwn(t *testing.T) {
	for _, through := range []string{"files", "git"} {
		t.Run(through, func(t *testing.T) {
			ctx := context.Background()
			dir := repo(t)
			s := open(t, dir, Options{})
			if through == "git" {
				f, err := os.OpenFile(filepath.Join(s.gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				// Version 0 repositories ignore extensions: git reads
				// this store as before, and the store defers to it.
				f.WriteString("[extensions]\n\trefStorage = files\n")
				f.Close()
			}
			if s.filesRefs() != (through == "files") {
				t.Fatalf("the store keeps its refs as files: %v", s.filesRefs())
			}
			a, err := s.Take(ctx, "sa", "p1")
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, "a.txt", "changed\n")
			b, err := s.Take(ctx, "sb", "p1")
			if err != nil {
				t.Fatal(err)
			}
			refs, ids := refsAndSessions(t, s)
			want := a.Tree + " refs/agent/sa/p1\n" + b.Tree + " refs/agent/sb/p1\n"
			if refs != want || !slices.Equal(ids, []string{"sa", "sb"}) {
				t.Fatalf("git's refs:\n%swant\n%ssessions %q, want [sa sb]", refs, want, ids)
			}
			if got := run(t, s.gitDir, "git", "--git-dir=.", "cat-file", "-t", "refs/agent/sb/p1"); strings.TrimSpace(got) != "tree" {
				t.Fatalf("refs/agent/sb/p1 names a %q, want a tree", got)
			}

			// Packed (a person's git gc in the store), then one session
			// forgotten: git deletes its packed ref.
			run(t, s.gitDir, "git", "--git-dir=.", "pack-refs", "--all")
			if _, ids := refsAndSessions(t, s); !slices.Equal(ids, []string{"sa", "sb"}) {
				t.Fatalf("with the refs packed, sessions %q, want [sa sb]", ids)
			}
			if err := s.Forget(ctx, "sa"); err != nil {
				t.Fatal(err)
			}
			if refs, ids := refsAndSessions(t, s); refs != b.Tree+" refs/agent/sb/p1\n" || !slices.Equal(ids, []string{"sb"}) {
				t.Fatalf("after forgetting sa, git's refs:\n%ssessions %q, want [sb]", refs, ids)
			}
			// A new checkpoint of a session whose refs are packed.
			write(t, dir, "a.txt", "again\n")
			c, err := s.Take(ctx, "sb", "p2")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Forget(ctx, "sb"); err != nil {
				t.Fatal(err)
			}
			if refs, ids := refsAndSessions(t, s); refs != "" || len(ids) != 0 {
				t.Fatalf("after forgetting both (the last checkpoint %s), git's refs:\n%ssessions %q, want none", c.Tree, refs, ids)
			}
			if through == "git" {
				return
			}
			// A session's directory a crash left empty is listed until
			// forgotten, once.
			if err := os.MkdirAll(filepath.Join(s.gitDir, "refs", "agent", "sc"), 0o700); err != nil {
				t.Fatal(err)
			}
			if _, ids := refsAndSessions(t, s); !slices.Equal(ids, []string{"sc"}) {
				t.Fatalf("with an empty directory of refs, sessions %q, want [sc]", ids)
			}
			if err := s.Forget(ctx, "sc"); err != nil {
				t.Fatal(err)
			}
			if _, ids := refsAndSessions(t, s); len(ids) != 0 {
				t.Fatalf("after forgetting sc, sessions %q, want none", ids)
			}
		})
	}
}
