package tools

// Keys of Result.Meta (and so of loop.ToolCallFinished.Meta) that packages
// other than the one writing them read: front-ends, the approval, the
// printer. Each names its value's Go type; the JSON a printer writes of
// them is the value's encoding under the same key.
const (
	// MetaTodos: []Todo, the session's whole todo list after a todo_write
	// call (read it with Todos).
	MetaTodos = "todos"
)
