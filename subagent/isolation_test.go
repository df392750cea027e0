package subagent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// The isolation a child is spawned with comes from the call's isolation
// argument, else from its agent's definition; what the child's Finish
// says ends the call's result.
func TestIsolationReachesTheSpawnAndFinishEndsTheResult(t *testing.T) {
	for _, c := range []struct {
		name, args, want string
	}{
		{"none", `{"description":"d","prompt":"p"}`, ""},
		{"asked by the call", `{"description":"d","prompt":"p","isolation":"worktree"}`, "worktree"},
		{"the agent's", `{"description":"d","prompt":"p","agent":"isolated"}`, "worktree"},
	} {
		var mu sync.Mutex
		got := "unset"
		reg, err := tools.NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		task := subagent.New(subagent.Config{
			Agents: []subagent.Agent{{Name: "isolated", Description: "works apart", Isolation: subagent.IsolationWorktree}},
			Spawn: func(ctx context.Context, s subagent.Spec) (*subagent.Child, error) {
				mu.Lock()
				got = s.Isolation
				mu.Unlock()
				l, err := loop.New(loop.Config{Provider: fake.New(fake.Text("done")), Model: "m", Catalog: picker.New(reg, picker.ModeAll)})
				return &subagent.Child{Loop: l, Conv: conversation.New("child", nil), Model: "m",
					Finish: func() string { return "Worked in worktree /w on branch agent/x: 1 file changed" }}, err
			}})
		res, err := task.Run(context.Background(), tools.Call{ID: "t", Args: json.RawMessage(c.args)})
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: spawned with isolation %q, want %q", c.name, got, c.want)
		}
		if !strings.HasSuffix(res.Content, "\n\nWorked in worktree /w on branch agent/x: 1 file changed") {
			t.Errorf("%s: the result does not end with Finish's line:\n%s", c.name, res.Content)
		}
	}
}

// The schema takes isolation "worktree" only, and the description says
// what it does and which defined agents are isolated.
func TestIsolationInTheDefinition(t *testing.T) {
	task := subagent.New(subagent.Config{Agents: []subagent.Agent{{Name: "isolated", Description: "works apart", Isolation: subagent.IsolationWorktree}}})
	def := task.Definition()
	reg, err := tools.NewRegistry(task)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Validate(def.Name, `{"description":"d","prompt":"p","isolation":"container"}`); err == nil {
		t.Error("isolation \"container\" passed the schema")
	}
	if _, err := reg.Validate(def.Name, `{"description":"d","prompt":"p","isolation":"worktree"}`); err != nil {
		t.Errorf("isolation \"worktree\" failed the schema: %v", err)
	}
	for _, want := range []string{"git worktree of its own", "Nothing is merged", "- isolated: works apart (isolation: worktree)"} {
		if !strings.Contains(def.Description, want) {
			t.Errorf("the description lacks %q:\n%s", want, def.Description)
		}
	}
}
