package subagent

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// mcpPrefix starts an MCP tool's name (mcp__SERVER__TOOL).
const mcpPrefix = "mcp__"

// Toolset is what the agent's tools come to among have, the names of the
// tools a child could get (the parent's, task left out by the caller):
// names are the tools it gets, in have's order; notes name, one phrase
// each, what of its tools and disallowedTools has no counterpart here.
//
// Without a tools field it gets all of have. Otherwise each entry is
// Claude Code's name of a tool (tools.FromClaude: Read is read_file), the
// agent's own name (read_file), an MCP tool's name or a pattern of them
// (mcp__docs__*, matched as path.Match matches), or a tool with a rule
// (Bash(git:*) is Bash; the rule is noted, not enforced: the session's
// permission rules decide its calls). disallowedTools, read the same way,
// are taken out. Task and Agent are noted: a subagent starts no
// subagents. An entry that is none of these (WebSearch, NotebookEdit, a
// misspelt name) is noted; the agent starts with the others.
func (a Agent) Toolset(have []string) (names, notes []string) {
	allow := have
	var missing, rules []string
	if a.Tools != nil {
		allow = nil
		for _, e := range a.Tools {
			got, rule, ok := resolve(e, have)
			switch {
			case ok:
				allow = append(allow, got...)
				if rule != "" {
					rules = append(rules, e)
				}
			case isTask(e):
				notes = append(notes, "tools: "+e+" not supported: a subagent starts no subagents")
			default:
				missing = append(missing, e)
			}
		}
	}
	deny := map[string]bool{}
	for _, e := range a.DisallowedTools {
		got, _, ok := resolve(e, have)
		if !ok && !isTask(e) {
			notes = append(notes, "disallowedTools: "+e+" names no tool here")
		}
		for _, n := range got {
			deny[n] = true
		}
	}
	for _, n := range have {
		if slices.Contains(allow, n) && !deny[n] && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("tools %s have no counterpart here: it starts with %s", strings.Join(missing, ", "), orNone(names)))
	}
	if len(rules) > 0 {
		notes = append(notes, fmt.Sprintf("tools %s: the rules in parentheses are not enforced; the session's permission rules decide each call", strings.Join(rules, ", ")))
	}
	return names, notes
}

// resolve is what tool entry e names among have: its names (several for
// an MCP pattern), the rule in its parentheses, and whether it names
// any. An MCP name counts even when its server has not connected yet.
func resolve(e string, have []string) (names []string, rule string, ok bool) {
	e = strings.TrimSpace(e)
	if i := strings.IndexByte(e, '('); i > 0 && strings.HasSuffix(e, ")") {
		e, rule = strings.TrimSpace(e[:i]), strings.TrimSpace(e[i+1:len(e)-1])
		if rule == "*" {
			rule = ""
		}
	}
	if strings.HasPrefix(e, mcpPrefix) {
		for _, n := range have {
			if m, _ := path.Match(e, n); m {
				names = append(names, n)
			}
		}
		return names, rule, true
	}
	own, ok := tools.FromClaude(e)
	if !ok && slices.Contains(have, e) {
		own, ok = e, true
	}
	if !ok || !slices.Contains(have, own) {
		return nil, rule, false
	}
	return []string{own}, rule, true
}

// isTask reports whether e names the task tool (Task, Agent, Task(x)).
func isTask(e string) bool {
	e, _, _ = strings.Cut(strings.TrimSpace(e), "(")
	own, _ := tools.FromClaude(e)
	return own == Name || e == Name
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no tools"
	}
	return strings.Join(names, ", ")
}
