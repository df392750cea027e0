package mcp

import (
	"regexp"
	"slices"
)

// VarRef matches a ${VAR} or ${VAR:-default} reference, the two forms
// Claude Code expands in .mcp.json ("MCP", Environment variable expansion
// in .mcp.json): group 1 is the variable's name, group 2 is ":-" when a
// default follows and group 3 the default (which cannot contain "}").
// Other forms, a bare $VAR or a shell's ${VAR%pattern}, are not references
// and stay as written.
var VarRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// Expand replaces the ${VAR} and ${VAR:-default} references of s. A
// variable's value is vars' (extra variables a caller defines, such as a
// plugin's ${CLAUDE_PLUGIN_ROOT}), else getenv's. A variable that is
// empty or unset takes its default, as a POSIX shell's ${VAR:-default}
// does; one without a default is left as written and named in missing,
// once, in the order met. getenv may be nil (only vars are known).
func Expand(s string, vars map[string]string, getenv func(string) string) (out string, missing []string) {
	out = VarRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := VarRef.FindStringSubmatch(ref)
		if v := lookup(m[1], vars, getenv); v != "" {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		if !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
		return ref
	})
	return out, missing
}

// RefNames returns the names of the variables s refers to, each once,
// in the order met.
func RefNames(s string) []string {
	var names []string
	for _, m := range VarRef.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

func lookup(name string, vars map[string]string, getenv func(string) string) string {
	if v, ok := vars[name]; ok {
		return v
	}
	if getenv == nil {
		return ""
	}
	return getenv(name)
}
