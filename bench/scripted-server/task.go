package main

import (
	"encoding/json"

	"github.com/agent-dev/agent/internal/scripted"
)

// The five-step task, as its model answers it: list the files, search for a
// function, read its file, change a line of it, then answer. Steps are
// model requests; each is told from the tool results since the user's last
// message, so the server keeps no state and runs stay independent. The
// task works in a directory holding calc.go with the line "return a + b"
// (bench/task.sh writes it).
//
// Each client gets its own tools' names and arguments: Crush's (ls, grep,
// view, edit) when the request offers a tool named "view", else agent's. In
// agent's default pick mode the first step also loads the tools it will
// use (pick_tools, in the same response as the listing: one request, as a
// model that knows its tools makes it).
var (
	agentTask = [][]scripted.Call{
		{call("pick_tools", map[string]any{"names": []string{"list_files", "grep", "read_file", "edit_file"}}),
			call("list_files", map[string]any{})},
		{call("grep", map[string]any{"pattern": "func Add"})},
		{call("read_file", map[string]any{"path": "calc.go"})},
		{call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return b + a"})},
	}
	crushTask = [][]scripted.Call{
		{call("ls", map[string]any{"path": "."})},
		{call("grep", map[string]any{"pattern": "func Add"})},
		{call("view", map[string]any{"file_path": "calc.go"})},
		{call("edit", map[string]any{"file_path": "calc.go", "old_string": "return a + b", "new_string": "return b + a"})},
	}
)

// call is a tool call of the task with args as its JSON arguments; its id
// is set by taskReply.
func call(name string, args map[string]any) scripted.Call {
	b, _ := json.Marshal(args)
	return scripted.Call{Name: name, Arguments: string(b)}
}

// taskReply answers c as the task's model: the next step's tool calls, or
// the answer once every step has its result. A request without tools (a
// client's title request) gets a short title.
func taskReply(c scripted.ChatRequest) scripted.Reply {
	if len(c.Tools) == 0 {
		return scripted.Text("Swap the operands")
	}
	steps := agentTask
	for _, t := range c.Tools {
		if t.Function.Name == "view" {
			steps = crushTask
		}
	}
	step := 0
	for i := len(c.Messages) - 1; i >= 0 && c.Messages[i].Role != "user"; i-- {
		if c.Messages[i].Role == "assistant" {
			step++
		}
	}
	if step >= len(steps) {
		return scripted.Text("Done: Add now returns b + a.")
	}
	calls := make([]scripted.Call, len(steps[step]))
	for i, cl := range steps[step] {
		cl.ID = "call_" + string(rune('a'+step)) + string(rune('0'+i))
		calls[i] = cl
	}
	return scripted.ToolCalls(calls...)
}
