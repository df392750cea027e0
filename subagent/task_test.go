package subagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/subagent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/picker"
)

// newTask returns a task tool whose children read files of dir with a
// model answering replies, at most maxSteps requests each.
func newTask(t *testing.T, dir string, maxSteps int, replies ...fake.Reply) *subagent.Tool {
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	reg, err := tools.NewRegistry(fs.Tools(root)...)
	if err != nil {
		t.Fatal(err)
	}
	return subagent.New(subagent.Config{Spawn: func(ctx context.Context, s subagent.Spec) (*subagent.Child, error) {
		l, err := loop.New(loop.Config{Provider: fake.New(replies...), Model: "m", Catalog: picker.New(reg, picker.ModeAll, reg.Names()),
			MaxSteps: maxSteps, Origin: loop.Origin{ParentCallID: s.CallID, Label: s.Description}})
		return &subagent.Child{Loop: l, Conv: conversation.New("child", nil), Model: "m"}, err
	}})
}

// A child stopped by its step limit gives what it found so far: its last
// text and the files it read, marked incomplete; its events reach the
// parent's call as progress, the start first.
func TestChildAtItsStepLimitKeepsWhatItFound(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	reply := fake.ToolCalls(fake.Call{ID: "r", Name: "read_file", Arguments: `{"path":"a.txt"}`})
	reply.Text = "a.txt looks relevant"
	task := newTask(t, dir, 1, reply)
	var mu sync.Mutex
	var events []loop.ChildEvent
	res, err := task.Run(context.Background(), tools.Call{ID: "task_1", Session: "parent", Args: json.RawMessage(`{"description":"find alpha","prompt":"where is alpha?"}`),
		Progress: func(p tools.Progress) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, p.Detail.(loop.ChildEvent))
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"did not finish (it reached its step limit)", "a.txt looks relevant", "Files it read: a.txt", "subagent incomplete"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if res.Meta["status"] != "incomplete" {
		t.Errorf("meta %v", res.Meta)
	}
	if len(events) < 3 || !events[0].Start || events[0].ParentCallID != "task_1" || events[0].Description != "find alpha" {
		t.Fatalf("events %+v", events)
	}
	if _, ok := events[len(events)-1].Event.(loop.Done); !ok {
		t.Errorf("the last event is %T, want the child's Done", events[len(events)-1].Event)
	}
}

// An answer longer than the cap is cut with a note of what was cut.
func TestLongAnswerIsCut(t *testing.T) {
	long := strings.Repeat("x", subagent.DefaultMaxResult+100)
	task := newTask(t, t.TempDir(), 5, fake.Text(long))
	res, err := task.Run(context.Background(), tools.Call{ID: "t", Args: json.RawMessage(`{"description":"d","prompt":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) > subagent.DefaultMaxResult+300 || !strings.Contains(res.Content, "the subagent's answer was cut here") {
		t.Errorf("result of %d bytes, ends %q", len(res.Content), res.Content[len(res.Content)-200:])
	}
}

// An agent that is not defined is an error result naming the defined ones.
func TestUnknownAgentIsAnErrorResult(t *testing.T) {
	task := subagent.New(subagent.Config{Agents: []subagent.Agent{{Name: "explorer", Description: "explores"}}})
	res, err := task.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"description":"d","prompt":"p","agent":"nope"}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "explorer") {
		t.Errorf("%+v, %v", res, err)
	}
	if !strings.Contains(task.Definition().Description, "- explorer: explores") {
		t.Errorf("the description does not list the agents:\n%s", task.Definition().Description)
	}
}
