package worktrees

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// bash is a bash call of the model.
func bash(id, command string) scripted.Call {
	args, _ := json.Marshal(map[string]string{"command": command})
	return scripted.Call{ID: id, Name: "bash", Arguments: string(args)}
}

// A headless session with --worktree that changes nothing leaves no
// worktree and no branch behind, and says nothing of one kept.
func TestWorktreeSessionThatChangesNothingLeavesNothing(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	srv := scripted.New(t, scripted.Text("Nothing to change."))
	res := e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: e2e.AgentArgs(srv, "--db", p.db, "-w", "quick", "-p", "look around")})
	if !strings.Contains(res.Stderr, "working in worktree "+p.worktreeDir("quick")+" on branch agent/quick") {
		t.Errorf("stderr does not say where the session works:\n%s", res.Stderr)
	}
	if strings.Contains(res.Stderr, "kept") || exists(p.worktreeDir("quick")) || strings.Contains(p.branches(t), "agent/quick") {
		t.Errorf("an unchanged worktree stayed: there %v, branches %s, stderr:\n%s", exists(p.worktreeDir("quick")), p.branches(t), res.Stderr)
	}
	if sys := e2e.LastUserText(srv.Requests()[0]); sys != "look around" {
		t.Errorf("prompt %q", sys)
	}
}

// A headless session with --worktree commits in the real sandbox (git add
// and commit write the main repository's .git, whose hooks stay
// read-only); its worktree and branch stay, and stderr says where, on
// which branch, with how many commits and files. The main tree is
// untouched.
func TestWorktreeSessionThatCommitsKeepsItsBranch(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	commit := "echo fixed > fix.txt && git add fix.txt && git -c user.name=A -c user.email=a@example.com commit -qm 'fix it' && echo committed"
	hook := `echo evil > "$(git rev-parse --git-common-dir)/hooks/post-commit" && echo planted`
	srv := scripted.New(t, scripted.ToolCalls(bash("b1", commit)), scripted.ToolCalls(bash("b2", hook)), scripted.Text("Fixed and committed."))
	res := e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: e2e.AgentArgs(srv, "--db", p.db, "--worktree", "feature", "--output-format", "stream-json", "-p", "fix it")})

	reqs := srv.Requests()
	if got := e2e.ToolResults(reqs[1])["b1"]; !strings.Contains(got, "committed") {
		t.Fatalf("the commit failed in the sandbox:\n%s", got)
	}
	if d := e2e.Decisions(t, res.Stdout)["b1"]; !strings.Contains(d, "sandbox: workspace-write") {
		t.Errorf("the commit's decision %q, want it run in the sandbox", d)
	}
	if got := e2e.ToolResults(reqs[2])["b2"]; strings.Contains(got, "planted") || !strings.Contains(got, "Read-only file system") {
		t.Errorf("a command wrote the repository's hooks from the worktree:\n%s", got)
	}
	wt := p.worktreeDir("feature")
	if want := "agent: worktree kept at " + wt + " on branch agent/feature (1 commit, 1 file changed)"; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
	}
	if log := gitIn(t, p.repo, "log", "--format=%s", "agent/feature"); !strings.HasPrefix(log, "fix it\n") {
		t.Errorf("branch agent/feature's log:\n%s", log)
	}
	if exists(p.repo+"/fix.txt") || gitIn(t, p.repo, "status", "--porcelain") != "" || gitIn(t, p.repo, "rev-parse", "--abbrev-ref", "HEAD") != "main" {
		t.Errorf("the main tree changed: %s", gitIn(t, p.repo, "status", "--porcelain"))
	}
	if exists(p.repo + "/.git/hooks/post-commit") {
		t.Error("the hook was planted")
	}

	// -c inside the kept worktree goes on with its session.
	srv2 := scripted.New(t, scripted.Text("Still here."))
	e2e.RunOK(t, e2e.Invocation{Dir: wt, Args: e2e.AgentArgs(srv2, "--db", p.db, "-c", "-p", "and now?")})
	if got := e2e.Roles(srv2.Requests()[0]); len(got) < 3 || got[1] != "user:fix it" {
		t.Errorf("-c in the worktree did not go on with its session: %v", got)
	}
}
