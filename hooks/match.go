package hooks

import (
	"regexp"
	"strings"
)

// claudeNames maps the agent's tools to Claude Code's names for them, so
// that a matcher written for Claude Code ("Bash", "Edit|Write") selects
// the same calls, and a hook's input names the tool as Claude Code would.
// MCP tools are called mcp__SERVER__TOOL by both.
var claudeNames = map[string]string{
	"bash": "Bash", "read_file": "Read", "write_file": "Write", "edit_file": "Edit",
	"grep": "Grep", "list_files": "Glob", "task": "Task", "todo_write": "TodoWrite",
	"exit_plan_mode": "ExitPlanMode",
}

// ClaudeName returns Claude Code's name for the agent's tool name, or the
// name itself when Claude Code has no equivalent.
func ClaudeName(tool string) string {
	if n, ok := claudeNames[tool]; ok {
		return n
	}
	return tool
}

// Match reports whether matcher selects value (a tool's name, a session
// start's source, a compaction's trigger). "" and "*" select everything.
// A matcher of names joined by "|" ("Bash|Edit") selects exactly those
// names; any other matcher is a regular expression that must match the
// whole value ("mcp__github__.*"). A tool is selected by its own name and
// by Claude Code's name for it (bash and Bash, edit_file and Edit). A
// matcher that is not a valid expression selects nothing.
func Match(matcher, value string) bool {
	matcher = strings.TrimSpace(matcher)
	if matcher == "" || matcher == "*" {
		return true
	}
	names := []string{value}
	if alias := ClaudeName(value); alias != value {
		names = append(names, alias)
	}
	if plain.MatchString(matcher) {
		for _, alt := range strings.Split(matcher, "|") {
			for _, n := range names {
				if strings.TrimSpace(alt) == n {
					return true
				}
			}
		}
		return false
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	if err != nil {
		return false
	}
	for _, n := range names {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

// plain is a matcher of names only.
var plain = regexp.MustCompile(`^[A-Za-z0-9_\- |]+$`)
