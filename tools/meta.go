package tools

// Keys of Result.Meta (and so of loop.ToolCallFinished.Meta and of a
// preview's Meta) that packages other than the one writing them read:
// front-ends, the approval, the printer, a sandbox. Each says its value's
// Go type and who writes it; a printer writes the value's JSON encoding
// under the same key, so the names are part of the agent's output.
const (
	// MetaTodos: []Todo, the session's whole todo list after a todo_write
	// call (read it with Todos).
	MetaTodos = "todos"
	// MetaPermissionMode: string, the permission mode in force after an
	// approved plan (exit_plan_mode); front-ends show it.
	MetaPermissionMode = "permission_mode"
	// MetaPlan: string, the plan exit_plan_mode presented.
	MetaPlan = "plan"
	// MetaStop: bool, true when the front-end took the plan as the run's
	// answer (headless): the run ends after the call.
	MetaStop = "stop"
	// MetaDiff: string, a unified diff of the change an edit made (or, in
	// a preview, would make): edit_file and write_file.
	MetaDiff = "diff"
	// MetaPath: string, the file a call wrote: a slash path relative to
	// the working directory for edit_file and write_file (and their
	// previews); an absolute path for memory_write.
	MetaPath = "path"
	// MetaProtected: string, in a preview, the risk of writing a protected
	// path (protect.Paths.WriteRisk's words): the approval must then be
	// the person's, for that one call. Absent when the path is not
	// protected.
	MetaProtected = "protected"
	// MetaExitCode: int, a command's exit status, -1 when a signal ended it
	// (bash).
	MetaExitCode = "exit_code"
	// MetaBackgroundID: string, the id of the background process a bash
	// call started or sent to the background ("bash_1").
	MetaBackgroundID = "background_id"
	// MetaDenied: bool, true on the error result of a call that was
	// refused (by the approval, a gate or the person) rather than run.
	MetaDenied = "denied"
	// MetaDecision: string, who or what decided a call that asked for
	// approval (loop.Decision.Why), when it said.
	MetaDecision = "decision"
)
