package host_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/worktree"
)

// gitIn runs git in dir with a fixed identity; the test fails when it
// fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repoFixture is a fixture whose working directory is a git repository
// with one commit.
func repoFixture(t *testing.T, model *fake.Provider) *fixture {
	t.Helper()
	f := newFixture(t, model, "")
	real, err := filepath.EvalSymlinks(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	f.dir = real
	gitIn(t, f.dir, "init", "-q")
	write(t, f.path("README"), "hello\n")
	gitIn(t, f.dir, "add", ".")
	gitIn(t, f.dir, "commit", "-q", "-m", "first")
	return f
}

// notes collects what a front-end's Warn is told.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) warn(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, s)
}

func (n *notes) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}

// A session with --worktree works in a worktree of its own: its files
// change there, not in the main tree. One that changes nothing leaves no
// worktree and no branch; one that writes a file keeps it, and the person
// is told where, on which branch, and what it holds.
func TestWorktreeSessionEnds(t *testing.T) {
	for _, c := range []struct {
		name  string
		model *fake.Provider
		kept  string
	}{
		{"nothing changed", fake.New(fake.Text("Nothing to do.")), ""},
		{"a file written", fake.New(fake.ToolCalls(call("w1", "write_file", `{"path":"notes.md","content":"done\n"}`)), fake.Text("Written.")),
			"on branch agent/wt (0 commits, 1 file changed)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := repoFixture(t, c.model)
			n := &notes{}
			s := f.open(t, host.Request{Worktree: "wt"}, host.FrontEnd{Mode: host.ModeAuto, Warn: n.warn})
			path, branch, ok := s.Worktree()
			if !ok || s.Dir() != path || branch != "agent/wt" || strings.HasPrefix(path, f.dir) {
				t.Fatalf("the session works in %s (worktree %s on %s, %v), want a worktree outside %s", s.Dir(), path, branch, ok, f.dir)
			}
			runTurn(t, s, "go")
			if exists(f.path("notes.md")) {
				t.Error("the main tree was changed")
			}
			s.Close()
			if !strings.Contains(n.all(), "working in worktree "+path+" on branch agent/wt") {
				t.Errorf("the person was not told where the session works: %q", n.all())
			}
			if c.kept == "" {
				if exists(path) || strings.Contains(gitIn(t, f.dir, "branch"), "agent/wt") {
					t.Errorf("an unchanged worktree was kept (branches: %s)", gitIn(t, f.dir, "branch"))
				}
				if strings.Contains(n.all(), "kept") {
					t.Errorf("told of a kept worktree: %q", n.all())
				}
				return
			}
			if !exists(filepath.Join(path, "notes.md")) || !strings.Contains(n.all(), "worktree kept at "+path+" "+c.kept) {
				t.Errorf("kept worktree: notes %q", n.all())
			}
		})
	}
}

// -c inside a kept worktree goes on with its session, and so does
// --worktree NAME --continue from the main tree; a worktree taken up again
// is kept at the end even when unchanged since.
func TestContinueInAWorktree(t *testing.T) {
	f := repoFixture(t, fake.New(
		fake.ToolCalls(call("w1", "write_file", `{"path":"a.txt","content":"a\n"}`)), fake.Text("Wrote a."),
		fake.Text("Still here."), fake.Text("And again.")))
	s := f.open(t, host.Request{Worktree: "wt"}, host.FrontEnd{Mode: host.ModeAuto})
	first, path := s.ID(), s.Dir()
	runTurn(t, s, "write a")
	s.Close()

	inside := f.open(t, host.Request{Dir: path, Continue: true}, host.FrontEnd{Mode: host.ModeAuto})
	if inside.ID() != first || !inside.Resumed() {
		t.Errorf("-c in the worktree opened %s, want its session %s", inside.ID(), first)
	}
	m, err := f.h.Worktrees()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := worktree.RepoOf(f.dir)
	if r, err := m.Get(repo, "wt"); err != nil || r.Owner == nil || r.Owner.PID != m.Self.PID {
		t.Errorf("a session opened in the worktree does not own it: %+v, %v", r, err)
	}
	runTurn(t, inside, "go on")
	inside.Close()

	n := &notes{}
	again := f.open(t, host.Request{Worktree: "wt", Continue: true}, host.FrontEnd{Mode: host.ModeAuto, Warn: n.warn})
	if again.ID() != first || again.Dir() != path {
		t.Errorf("--worktree wt -c opened %s in %s, want %s in %s", again.ID(), again.Dir(), first, path)
	}
	gitIn(t, path, "add", "a.txt")
	gitIn(t, path, "commit", "-q", "-m", "a")
	again.Close()
	if !exists(path) || !strings.Contains(n.all(), "(1 commit, 1 file changed)") {
		t.Errorf("the worktree taken up again: there %v, notes %q", exists(path), n.all())
	}
}

// A worktree whose session's process died is reported once, at the next
// start in its repository, with its name; one whose process runs is not.
func TestOrphanedWorktreesAreReportedOnce(t *testing.T) {
	f := repoFixture(t, fake.New(fake.Text("a"), fake.Text("b")))
	m, err := f.h.Worktrees()
	if err != nil {
		t.Fatal(err)
	}
	dead := &worktree.Manager{Dir: m.Dir, Self: worktree.Owner{PID: 1 << 30, Host: m.Self.Host}}
	if _, err := dead.Create(context.Background(), f.dir, worktree.Spec{Name: "crashed"}); err != nil {
		t.Fatal(err)
	}
	n := &notes{}
	f.open(t, host.Request{}, host.FrontEnd{Warn: n.warn}).Close()
	if want := "1 worktree was left by a session that did not end (crashed): agent worktree list shows them, agent worktree prune removes the clean ones"; n.all() != want {
		t.Errorf("notes %q\nwant  %q", n.all(), want)
	}
	n2 := &notes{}
	f.open(t, host.Request{}, host.FrontEnd{Warn: n2.warn}).Close()
	if n2.all() != "" {
		t.Errorf("reported again: %q", n2.all())
	}
	entries, _ := m.List(context.Background(), "")
	if len(entries) != 1 || !entries[0].Crashed {
		t.Errorf("entries %+v, want the crashed one, marked", entries)
	}
}

// --worktree refuses what it cannot do, as usage errors: a bad name, a
// directory in no repository, --resume beside it, a worktree another
// process works in.
func TestWorktreeRefusals(t *testing.T) {
	f := repoFixture(t, fake.New())
	m, err := f.h.Worktrees()
	if err != nil {
		t.Fatal(err)
	}
	// The test's parent process (go test) runs as long as the test: the
	// owner of a worktree in use.
	busy := &worktree.Manager{Dir: m.Dir, Self: worktree.Owner{PID: os.Getppid(), Host: m.Self.Host}}
	if _, err := busy.Create(context.Background(), f.dir, worktree.Spec{Name: "busy"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  host.Request
		want string
	}{
		{"bad name", host.Request{Dir: f.dir, Worktree: "a b"}, "worktree name"},
		{"no repository", host.Request{Dir: t.TempDir(), Worktree: "x"}, "not in a git repository"},
		{"resume", host.Request{Dir: f.dir, Worktree: "x", Resume: "abcd"}, "cannot be used together"},
		{"in use", host.Request{Dir: f.dir, Worktree: "busy"}, "in use by process"},
	} {
		_, err := f.h.OpenSession(t.Context(), c.req, host.FrontEnd{})
		var ue host.UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a usage error saying %q", c.name, err, c.want)
		}
	}
	entries, _ := m.List(context.Background(), "")
	if len(entries) != 1 {
		t.Errorf("refusals left worktrees: %+v", entries)
	}
}

// The memory of a session in a worktree is its repository's.
func TestWorktreeSessionHasTheRepositorysMemory(t *testing.T) {
	f := repoFixture(t, fake.New())
	main := f.open(t, host.Request{}, host.FrontEnd{})
	want, err := main.MemoryFile()
	if err != nil {
		t.Fatal(err)
	}
	s := f.open(t, host.Request{Worktree: "wt"}, host.FrontEnd{})
	if got, err := s.MemoryFile(); err != nil || got != want {
		t.Errorf("the worktree's MEMORY.md is %s (%v), want the repository's %s", got, err, want)
	}
}

// --worktree from a subdirectory works in the same subdirectory of the
// worktree, and the session there owns the worktree.
func TestWorktreeFromASubdirectory(t *testing.T) {
	f := repoFixture(t, fake.New())
	write(t, f.path("web/app.js"), "x\n")
	gitIn(t, f.dir, "add", ".")
	gitIn(t, f.dir, "commit", "-q", "-m", "web")
	s := f.open(t, host.Request{Dir: f.path("web"), Worktree: "wt"}, host.FrontEnd{})
	path, _, _ := s.Worktree()
	if s.Dir() != filepath.Join(path, "web") {
		t.Errorf("the session works in %s, want %s", s.Dir(), filepath.Join(path, "web"))
	}
}
