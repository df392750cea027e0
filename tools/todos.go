package tools

// Todo is one entry of a session's todo list: todo_write keeps the list,
// and its result carries the whole list in Meta[MetaTodos] as a []Todo,
// from which front-ends show it without knowing the tool. Its JSON is
// {"content": ..., "status": ...}, the tool's own argument shape.
type Todo struct {
	// Content is the task, in the imperative, without surrounding white
	// space.
	Content string `json:"content"`
	// Status is TodoPending, TodoInProgress or TodoCompleted.
	Status string `json:"status"`
}

// The statuses of a Todo; at most one item of a list is TodoInProgress.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// UnfinishedTodos reports whether any item of items is not TodoCompleted;
// false for an empty list.
func UnfinishedTodos(items []Todo) bool {
	for _, it := range items {
		if it.Status != TodoCompleted {
			return true
		}
	}
	return false
}

// Todos returns the todo list meta carries under MetaTodos (the whole list
// after a todo_write call); ok is false when it carries none.
func Todos(meta map[string]any) (items []Todo, ok bool) {
	items, ok = meta[MetaTodos].([]Todo)
	return items, ok
}
