package worktrees

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// crashIn runs agent -w name in the project until the model's server has
// received n requests (the last one held while it streams), then kills it
// with SIGKILL and waits for it; it returns what it wrote on stderr.
func crashIn(t *testing.T, p project, name string, n int, replies ...scripted.Reply) string {
	t.Helper()
	srv := scripted.New(t, replies...)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.Agent(t), e2e.AgentArgs(srv, "--db", p.db, "-w", name, "-p", "work")...)
	cmd.Dir, cmd.Env = p.repo, e2e.BaseEnv(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitRequests(ctx, n); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	return stderr.String()
}

// Two sessions killed mid-way (kill -9) leave their worktrees: one clean,
// one with a file written. The next start in the repository reports each,
// once (the second session's start reports the first's); agent
// worktree list shows them as left by a crash; remove and prune refuse
// the dirty one without --force; prune removes the clean one with its
// branch, and prune --force the dirty one.
func TestCrashLeavesAWorktreeThatTheNextStartReportsAndPruneRemoves(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	crashIn(t, p, "clean", 1, scripted.Text("never finished").HoldAfterEvents(1, hold))
	second := crashIn(t, p, "dirty", 2,
		scripted.ToolCalls(scripted.Call{ID: "w1", Name: "write_file", Arguments: e2e.WriteArgs("wip.txt", "half done\n")}),
		scripted.Text("never finished").HoldAfterEvents(1, hold))
	for _, name := range []string{"clean", "dirty"} {
		if !exists(p.worktreeDir(name)) {
			t.Fatalf("the killed session's worktree %s is gone", name)
		}
	}
	if !exists(filepath.Join(p.worktreeDir("dirty"), "wip.txt")) {
		t.Fatal("the dirty session did not write before it was killed")
	}

	srv := scripted.New(t, scripted.Text("hello"), scripted.Text("hello again"))
	res := e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: e2e.AgentArgs(srv, "--db", p.db, "-p", "hi")})
	if want := "agent: 1 worktree was left by a session that did not end (clean): agent worktree list shows them, agent worktree prune removes the clean ones"; !strings.Contains(second, want) {
		t.Errorf("the second session's stderr lacks %q:\n%s", want, second)
	}
	if want := "agent: 1 worktree was left by a session that did not end (dirty)"; !strings.Contains(res.Stderr, want) || strings.Contains(res.Stderr, "(clean)") {
		t.Errorf("the next start's stderr lacks %q, or reports clean again:\n%s", want, res.Stderr)
	}
	if res := e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: e2e.AgentArgs(srv, "--db", p.db, "-p", "hi")}); strings.Contains(res.Stderr, "left by") {
		t.Errorf("reported again:\n%s", res.Stderr)
	}

	worktree := func(args ...string) e2e.Result {
		return e2e.Run(t, e2e.Invocation{Dir: p.repo, Args: append([]string{"--db", p.db, "worktree"}, args...)})
	}
	list := worktree("list")
	for _, want := range []string{"clean; left by a crash", "dirty (1 file); left by a crash"} {
		if !strings.Contains(list.Stdout, want) {
			t.Errorf("agent worktree list lacks %q:\n%s", want, list.Stdout)
		}
	}
	if r := worktree("remove", "dirty"); r.Code != 1 || !strings.Contains(r.Stderr, "uncommitted changes") || !exists(p.worktreeDir("dirty")) {
		t.Errorf("remove of the dirty worktree: exit %d, stderr %s", r.Code, r.Stderr)
	}
	pruned := worktree("prune")
	if pruned.Code != 0 || !strings.Contains(pruned.Stdout, "removed worktree clean") || !strings.Contains(pruned.Stdout, "branch agent/clean deleted") ||
		!strings.Contains(pruned.Stdout, "kept worktree dirty") {
		t.Errorf("prune: exit %d\n%s%s", pruned.Code, pruned.Stdout, pruned.Stderr)
	}
	if exists(p.worktreeDir("clean")) || !exists(filepath.Join(p.worktreeDir("dirty"), "wip.txt")) {
		t.Errorf("after prune: clean there %v, dirty's work there %v", exists(p.worktreeDir("clean")), exists(filepath.Join(p.worktreeDir("dirty"), "wip.txt")))
	}
	if forced := worktree("prune", "--force"); forced.Code != 0 || !strings.Contains(forced.Stdout, "removed worktree dirty") || exists(p.worktreeDir("dirty")) {
		t.Errorf("prune --force: exit %d\n%s%s", forced.Code, forced.Stdout, forced.Stderr)
	}
	if b := p.branches(t); b != "main" {
		t.Errorf("branches left: %s", b)
	}
	if list := gitIn(t, p.repo, "worktree", "list"); strings.Contains(list, "agent/") {
		t.Errorf("git still lists worktrees:\n%s", list)
	}
}
