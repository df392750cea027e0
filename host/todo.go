package host

import (
	"context"

	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
)

// storeTodos keeps todo_write's lists in the session store.
type storeTodos struct{ store *sessions.Store }

// Save replaces session's list.
func (s storeTodos) Save(ctx context.Context, session string, items []tools.Todo) error {
	list := make([]sessions.Todo, len(items))
	for i, it := range items {
		list[i] = sessions.Todo{Content: it.Content, Status: it.Status}
	}
	return s.store.SaveTodos(ctx, session, list)
}
