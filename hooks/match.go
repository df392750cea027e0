package hooks

import (
	"regexp"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Match reports whether matcher selects value (a tool's name, a session
// start's source, a compaction's trigger). "" and "*" select everything.
// A matcher of names joined by "|" ("Bash|Edit") selects exactly those
// names; any other matcher is a regular expression that must match the
// whole value ("mcp__github__.*"). A tool is selected by its own name and
// by each of Claude Code's names for it (tools.ClaudeNames: bash and Bash;
// edit_file, Edit and MultiEdit; web_fetch and WebFetch). A matcher that
// is not a valid expression selects nothing.
func Match(matcher, value string) bool {
	matcher = strings.TrimSpace(matcher)
	if matcher == "" || matcher == "*" {
		return true
	}
	names := append([]string{value}, tools.ClaudeNames(value)...)
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
