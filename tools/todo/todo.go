// Package todo is the todo_write tool: the model keeps a visible task list
// for the session, sending the whole list with each call (Claude Code's
// TodoWrite). The list is stored with the session through a Store, and
// every call's result carries it in Meta[tools.MetaTodos] ([]tools.Todo)
// for front-ends (the interface pins it above the input, stream-json prints
// a todo event).
package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Name is the tool's name.
const Name = "todo_write"

// Store keeps each session's list; a failed Save is the call's error
// result.
type Store interface {
	// Save replaces session's list with items (the whole list, in order).
	Save(ctx context.Context, session string, items []tools.Todo) error
}

// Tool is todo_write. A nil Store keeps nothing beyond the results.
type Tool struct{ store Store }

// New returns the tool writing to store (nil: nowhere).
func New(store Store) *Tool { return &Tool{store: store} }

const schema = `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{
"content":{"type":"string","minLength":1,"description":"the task, in the imperative"},
"status":{"type":"string","enum":["pending","in_progress","completed"]}},
"required":["content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`

const description = `Replace the session's todo list.

Write the whole list each time: it replaces the one before. Use it for work of three steps or more, so the user sees the plan and where you are: add the steps, mark one
in_progress before you start it (at most one at a time), mark it completed as soon as it is done, and add what
you discover. Skip it for a single simple step.`

// Definition describes the tool.
func (t *Tool) Definition() tools.Definition {
	return tools.Definition{
		Name: Name, Description: description, Schema: json.RawMessage(schema),
		// It changes only the session's own list, nothing in the world.
		ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindThink,
		Summarize: func(args string) tools.Summary {
			items, err := parse(json.RawMessage(args))
			if err != nil {
				return tools.DefaultSummary(args)
			}
			return tools.Summary{Title: counts(items), Full: tools.PrettyJSON(args)}
		},
	}
}

// Run replaces the session's list.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	items, err := parse(call.Args)
	if err != nil {
		return tools.Errorf("todo_write: %v", err), nil
	}
	if n := count(items, tools.TodoInProgress); n > 1 {
		return tools.Errorf("todo_write: %d items are in_progress; at most one may be: finish one first", n), nil
	}
	if t.store != nil && call.Session != "" {
		if err := t.store.Save(ctx, call.Session, items); err != nil {
			return tools.Errorf("todo_write: saving the list: %v", err), nil
		}
	}
	return tools.Result{Content: "The todo list is updated: " + counts(items) + ".", Meta: map[string]any{tools.MetaTodos: items}}, nil
}

func parse(raw json.RawMessage) ([]tools.Todo, error) {
	var a struct {
		Todos []tools.Todo `json:"todos"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	for i := range a.Todos {
		a.Todos[i].Content = strings.TrimSpace(a.Todos[i].Content)
	}
	if a.Todos == nil {
		a.Todos = []tools.Todo{}
	}
	return a.Todos, nil
}

func count(items []tools.Todo, status string) int {
	n := 0
	for _, it := range items {
		if it.Status == status {
			n++
		}
	}
	return n
}

// counts says how many items are in each state.
func counts(items []tools.Todo) string {
	return fmt.Sprintf("%d completed, %d in progress, %d pending", count(items, tools.TodoCompleted), count(items, tools.TodoInProgress), count(items, tools.TodoPending))
}
