package worktrees

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// isolatedFanOut is a model whose parent starts three subagents with
// isolation worktree in one step; each writes notes.md with its own text.
// Every child's first reply is held until all three children's first
// requests have arrived, so they can only finish if they run side by
// side.
type isolatedFanOut struct {
	mu      sync.Mutex
	firsts  int
	release chan struct{}
}

func (f *isolatedFanOut) respond(req scripted.ChatRequest) scripted.Reply {
	switch {
	case e2e.IsChild(req) && !e2e.HasToolResults(req):
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.firsts++; f.firsts == 3 {
			close(f.release)
		}
		task := e2e.LastUserText(scripted.Request{Chat: req})
		args, _ := json.Marshal(map[string]string{"path": "notes.md", "content": "written by " + task + "\n"})
		return scripted.ToolCalls(scripted.Call{ID: "w-" + task, Name: "write_file", Arguments: string(args)}).HoldAfterEvents(0, f.release)
	case e2e.IsChild(req):
		return scripted.Text("wrote notes.md")
	case !e2e.HasToolResults(req):
		var calls []scripted.Call
		for _, task := range []string{"alpha", "beta", "gamma"} {
			args, _ := json.Marshal(map[string]string{"description": "notes " + task, "prompt": task, "isolation": "worktree"})
			calls = append(calls, scripted.Call{ID: "task_" + task, Name: "task", Arguments: string(args)})
		}
		return scripted.ToolCalls(calls...)
	}
	return scripted.Text("three worktrees hold the notes")
}

// workedIn finds the worktree and branch a child's result ends with.
var workedIn = regexp.MustCompile(`Worked in worktree (\S+) on branch (agent/task-[0-9a-f]{6}) \(0 commits, and uncommitted changes; nothing merged\):\n notes\.md \| 1 \+\n 1 file changed, 1 insertion\(\+\)$`)

// Three subagents with isolation: worktree write the same file name in
// parallel, each in a worktree of its own: each result names its
// worktree, its branch and the diff's stat, each worktree holds its own
// text, and the main tree is untouched. Nothing is merged.
func TestThreeIsolatedSubagentsWriteTheSameFileApart(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	model := &isolatedFanOut{release: make(chan struct{})}
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: model.respond})
	e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: e2e.AgentArgs(srv, "--db", p.db, "--tools", "all", "--output-format", "stream-json", "-p", "take notes three times")})

	var last scripted.Request
	for _, r := range srv.Requests() {
		if !e2e.IsChild(r.Chat) {
			last = r
		}
	}
	results := e2e.ToolResults(last)
	seen := map[string]bool{}
	for _, task := range []string{"alpha", "beta", "gamma"} {
		res := results["task_"+task]
		m := workedIn.FindStringSubmatch(res)
		if m == nil {
			t.Errorf("task %s's result does not end with its worktree and diff stat:\n%s", task, res)
			continue
		}
		if seen[m[1]] || filepath.Dir(m[1]) != filepath.Dir(p.worktreeDir("x")) || "agent/"+filepath.Base(m[1]) != m[2] {
			t.Errorf("task %s worked in %s on %s", task, m[1], m[2])
		}
		seen[m[1]] = true
		if got, err := os.ReadFile(filepath.Join(m[1], "notes.md")); err != nil || string(got) != "written by "+task+"\n" {
			t.Errorf("task %s's worktree holds %q (%v)", task, got, err)
		}
	}
	if exists(filepath.Join(p.repo, "notes.md")) || gitIn(t, p.repo, "status", "--porcelain") != "" {
		t.Errorf("the main tree changed: %s", gitIn(t, p.repo, "status", "--porcelain"))
	}
	if got := p.branches(t); strings.Count(got, "agent/task-") != 3 || gitIn(t, p.repo, "rev-list", "--count", "--all") != "1" {
		t.Errorf("branches %s with %s commits: want three branches and nothing committed or merged", got, gitIn(t, p.repo, "rev-list", "--count", "--all"))
	}
	list := e2e.RunOK(t, e2e.Invocation{Dir: p.repo, Args: []string{"--db", p.db, "worktree", "list"}})
	if n := strings.Count(list.Stdout, "(subagent)"); n != 3 || strings.Count(list.Stdout, "dirty (1 file)") != 3 {
		t.Errorf("agent worktree list:\n%s", list.Stdout)
	}
}
