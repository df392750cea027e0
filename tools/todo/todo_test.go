package todo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/todo"
	"github.com/agent-dev/agent/tools/toolstest"
)

type memStore map[string][]tools.Todo

func (m memStore) Save(_ context.Context, session string, items []tools.Todo) error {
	m[session] = items
	return nil
}

func TestConformance(t *testing.T) {
	toolstest.Run(t, toolstest.Suite{
		Tool:          todo.New(nil),
		SchemaInvalid: []string{`{}`, `{"todos":[{"content":"x","status":"done"}]}`, `{"todos":[{"status":"pending"}]}`},
		BadArgs:       []string{`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`},
	})
}

// A call replaces the session's list, stored under its session, and its
// result is short and carries the list for front-ends.
func TestWriteReplacesTheSessionsList(t *testing.T) {
	store := memStore{}
	tool := todo.New(store)
	args := `{"todos":[{"content":"read","status":"completed"},{"content":"fix","status":"in_progress"},{"content":"test","status":"pending"}]}`
	res, err := tool.Run(context.Background(), tools.Call{Session: "s1", Args: json.RawMessage(args)})
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if res.Content != "The todo list is updated: 1 completed, 1 in progress, 1 pending." {
		t.Errorf("result %q", res.Content)
	}
	if len(store["s1"]) != 3 || store["s1"][1].Status != tools.TodoInProgress {
		t.Errorf("stored %v", store["s1"])
	}
	if items, ok := tools.Todos(res.Meta); !ok || !tools.UnfinishedTodos(items) {
		t.Errorf("meta %v", res.Meta)
	}
}
