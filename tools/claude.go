package tools

import "strings"

// claudeTools is the one table of Claude Code's tool names and the agent's
// tools that do their work, read by hooks' matchers and their input, by
// agent definitions' tool lists and by the Claude Agent SDK's
// --allowedTools, --disallowedTools and tools option. A tool of the agent
// may have several Claude Code names; the first listed is the one the
// agent gives it (ClaudeName). An entry whose own name is "" is a Claude
// Code tool the agent has no tool for yet: give it the tool's name when
// one comes. MCP tools are mcp__SERVER__TOOL in both and need no entry.
var claudeTools = []struct{ claude, own string }{
	{"Bash", "bash"},
	{"Read", "read_file"},
	{"Write", "write_file"},
	{"Edit", "edit_file"},
	{"MultiEdit", "edit_file"}, // edit_file takes several edits of one file
	{"Grep", "grep"},
	{"Glob", "list_files"},
	{"LS", "list_files"}, // list_files lists a directory, or the files a glob matches
	{"Task", "task"},
	{"Agent", "task"}, // Task's newer name
	{"Skill", "skill"},
	{"TodoWrite", "todo_write"},
	{"ExitPlanMode", "exit_plan_mode"},
	{"WebFetch", "web_fetch"},
	{"LSP", "lsp"}, // the language servers' navigation
	// The provider's own web search (Anthropic's web_search server tool)
	// runs on the model's side: no call of the agent's to match or allow.
	{"WebSearch", ""},
	// Background shells (bash's run_in_background).
	{"BashOutput", "bash_output"},
	{"KillShell", "kill_shell"},
	{"KillBash", "kill_shell"}, // KillShell's older name
	{"NotebookEdit", ""},
	{"NotebookRead", ""},
	{"SlashCommand", ""},
	{"AskUserQuestion", ""},
}

// mcpPrefix starts an MCP tool's name, the same in Claude Code and here.
const mcpPrefix = "mcp__"

// FromClaude returns the agent's tool for Claude Code's tool name claude
// ("WebFetch" gives "web_fetch"); an MCP tool's name (mcp__SERVER__TOOL)
// is returned as it is. ok is false, and own "", for a name Claude Code
// does not give a tool of the agent's: one the agent has no tool for
// (WebSearch, NotebookEdit), one that is not Claude Code's (the agent's own
// names among them), or a name of another case ("bash" is not "Bash").
func FromClaude(claude string) (own string, ok bool) {
	if strings.HasPrefix(claude, mcpPrefix) {
		return claude, true
	}
	for _, t := range claudeTools {
		if t.claude == claude && t.own != "" {
			return t.own, true
		}
	}
	return "", false
}

// ClaudeName returns Claude Code's name for the agent's tool own (the
// first of ClaudeNames: "edit_file" gives "Edit"), or own itself when
// Claude Code has none (an MCP tool's name is the same in both).
func ClaudeName(own string) string {
	if names := ClaudeNames(own); len(names) > 0 {
		return names[0]
	}
	return own
}

// ClaudeNames returns every Claude Code name of the agent's tool own, in
// the table's order ("list_files" gives Glob and LS); nil when there is
// none, as for an MCP tool or an empty own.
func ClaudeNames(own string) []string {
	if own == "" {
		return nil
	}
	var out []string
	for _, t := range claudeTools {
		if t.own == own {
			out = append(out, t.claude)
		}
	}
	return out
}
