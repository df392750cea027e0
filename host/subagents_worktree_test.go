package host_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// worktreeLine finds the line a child's result ends with: the worktree's
// path and branch.
var worktreeLine = regexp.MustCompile(`Worked in worktree (\S+) on branch (agent/task-[0-9a-f]{6})`)

// Three subagents with isolation worktree, started side by side, each
// write notes.md in a worktree of its own: the main tree is untouched,
// each worktree holds its own text, and each result names its worktree,
// its branch and the diff's stat. A fourth that changes nothing leaves no
// worktree.
func TestIsolatedSubagentsWriteTheSameFileApart(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		child := strings.Contains(req.System, "You are a subagent")
		answered := len(toolResults(req)) > 0
		switch {
		case !child && !answered:
			var calls []fake.Call
			for i, task := range []string{"one", "two", "three", "idle"} {
				calls = append(calls, call(fmt.Sprintf("t%d", i), "task",
					fmt.Sprintf(`{"description":"write %s","prompt":"%s","isolation":"worktree"}`, task, task)))
			}
			return fake.ToolCalls(calls...)
		case child && !answered && lastUser(req) != "idle":
			args, _ := json.Marshal(map[string]string{"path": "notes.md", "content": "written by " + lastUser(req) + "\n"})
			return fake.ToolCalls(call("w-"+lastUser(req), "write_file", string(args)))
		case child:
			return fake.Text("Done.")
		}
		return fake.Text("All three wrote.")
	})
	f := repoFixture(t, model)
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	r := runTurn(t, s, "write notes three times")

	seen := map[string]bool{}
	for i, task := range []string{"one", "two", "three"} {
		res := r.result(t, fmt.Sprintf("t%d", i)).Content
		m := worktreeLine.FindStringSubmatch(res)
		if m == nil || !strings.HasSuffix(res, "notes.md | 1 +\n 1 file changed, 1 insertion(+)") || !strings.Contains(res, "(0 commits, and uncommitted changes; nothing merged)") {
			t.Errorf("task %s's result does not end with its worktree and diff stat:\n%s", task, res)
			continue
		}
		path := m[1]
		if seen[path] || strings.HasPrefix(path, f.dir) || !strings.HasSuffix(m[2], filepath.Base(path)) {
			t.Errorf("task %s worked in %s on %s: shared, inside the main tree, or not its branch", task, path, m[2])
		}
		seen[path] = true
		if got, err := os.ReadFile(filepath.Join(path, "notes.md")); err != nil || string(got) != "written by "+task+"\n" {
			t.Errorf("task %s's worktree holds %q (%v)", task, got, err)
		}
	}
	if exists(f.path("notes.md")) || gitIn(t, f.dir, "status", "--porcelain") != "" {
		t.Errorf("the main tree changed: %s", gitIn(t, f.dir, "status", "--porcelain"))
	}
	idle := r.result(t, "t3").Content
	if m := worktreeLine.FindStringSubmatch(idle); m == nil || !strings.HasSuffix(idle, "no changes, so the worktree and its branch were removed.") || exists(m[1]) {
		t.Errorf("the idle task's result:\n%s", idle)
	}
	children, err := s.Store().Children(t.Context(), s.ID())
	if err != nil || len(children) != 4 {
		t.Fatalf("children %d, %v", len(children), err)
	}
	for _, c := range children {
		if c.Title != "write idle" && !seen[c.Dir] {
			t.Errorf("child %q's session works in %s, not in its worktree", c.Title, c.Dir)
		}
	}
	if b := gitIn(t, f.dir, "branch"); strings.Count(b, "agent/task-") != 3 {
		t.Errorf("branches: %s, want the three that hold changes", b)
	}
}

// A defined agent with isolation: worktree runs its named tools in its
// worktree: bash's commands run there (a commit lands on its branch), and
// a tool it does not name is not offered.
func TestDefinedAgentWithIsolationRunsItsToolsInItsWorktree(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		child := strings.Contains(req.System, "You are a subagent")
		answered := len(toolResults(req)) > 0
		switch {
		case !child && !answered:
			return fake.ToolCalls(call("t1", "task", `{"description":"commit a file","prompt":"commit","agent":"committer"}`))
		case child && !answered:
			for _, d := range req.Tools {
				if d.Name == "write_file" {
					return fake.Text("I was given write_file.")
				}
			}
			return fake.ToolCalls(call("b1", "bash", `{"command":"pwd && echo x > x.txt && git add x.txt && git -c user.name=T -c user.email=t@example.com commit -qm x && echo committed"}`))
		case child:
			return fake.Text("Committed.")
		}
		return fake.Text("ok")
	})
	f := repoFixture(t, model)
	write(t, f.path(".agent/agents/committer.md"), "---\nname: committer\ndescription: Commits.\ntools: Bash, Read\nisolation: worktree\n---\nYou commit.\n")
	gitIn(t, f.dir, "add", ".")
	gitIn(t, f.dir, "commit", "-q", "-m", "agent")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, AllowBash: true})
	r := runTurn(t, s, "commit something")
	res := r.result(t, "t1").Content
	m := worktreeLine.FindStringSubmatch(res)
	if m == nil || !strings.Contains(res, "(1 commit; nothing merged)") || !strings.HasSuffix(res, "x.txt | 1 +\n 1 file changed, 1 insertion(+)") {
		t.Fatalf("the result:\n%s", res)
	}
	if log := gitIn(t, f.dir, "log", "--format=%s", m[2]); !strings.HasPrefix(log, "x\n") {
		t.Errorf("the commit is not on %s: %s", m[2], log)
	}
	if exists(f.path("x.txt")) {
		t.Error("the command ran in the main tree")
	}
}
