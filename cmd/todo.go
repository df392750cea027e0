package cmd

import (
	"context"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
)

// storeTodos keeps todo_write's lists in the session store, once there is
// one (before, nothing is kept beyond the results).
type storeTodos struct{ j *storeJournals }

// Save replaces session's list.
func (s storeTodos) Save(ctx context.Context, session string, items []tools.Todo) error {
	s.j.mu.Lock()
	store := s.j.store
	s.j.mu.Unlock()
	if store == nil {
		return nil
	}
	list := make([]sessions.Todo, len(items))
	for i, it := range items {
		list[i] = sessions.Todo{Content: it.Content, Status: it.Status}
	}
	return store.SaveTodos(ctx, session, list)
}

// todoObject is the stream-json todo event after a todo_write call: the
// whole list; nil for other events.
func todoObject(ev loop.Event) map[string]any {
	f, ok := ev.(loop.ToolCallFinished)
	if !ok || f.IsError {
		return nil
	}
	items, ok := tools.Todos(f.Meta)
	if !ok {
		return nil
	}
	return map[string]any{"type": "todo", "id": f.ID, "todos": items}
}
