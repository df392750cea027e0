package commands

import (
	"fmt"
	"strings"
)

// Fields reads the top-level keys of front matter written as the files of
// Claude Code's commands, skills and agents are: "key: value" lines, a
// value continued on more indented lines (joined with a space), a block
// scalar ("key: |" keeps the lines, "key: >" joins them), a list as
// "[a, b]" or as "- item" lines under the key, and quoted values. A value
// is a string, or a []string for a list. Comment lines (#) are skipped; a
// line that is none of these is an error naming it. It is the subset of
// YAML these files use, read leniently as Claude Code reads them: an
// unquoted value may hold ": " ("description: Use when: the build
// fails"), which a YAML parser refuses.
func Fields(front string) (map[string]any, error) {
	out := map[string]any{}
	lines := strings.Split(front, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, fmt.Errorf("front matter line %d: an indented line outside a value: %q", i+1, line)
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("front matter line %d: not a key: value line: %q", i+1, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		// The lines that belong to this key: more indented ones.
		var more []string
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			more = append(more, strings.TrimRight(lines[i], " \t\r"))
		}
		out[key] = fieldValue(value, more)
	}
	return out, nil
}

// fieldValue is a key's value from the rest of its line and its more
// indented lines.
func fieldValue(value string, more []string) any {
	var items []string
	for _, m := range more {
		if item, ok := strings.CutPrefix(strings.TrimSpace(m), "- "); ok {
			items = append(items, unquote(item))
		}
	}
	switch {
	case value == "" && len(items) > 0:
		return items
	case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
		var list []string
		for _, f := range strings.Split(value[1:len(value)-1], ",") {
			if f = unquote(strings.TrimSpace(f)); f != "" {
				list = append(list, f)
			}
		}
		return list
	case strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">"):
		var kept []string
		for _, m := range more {
			kept = append(kept, strings.TrimSpace(m))
		}
		sep := " "
		if value[0] == '|' {
			sep = "\n"
		}
		return strings.TrimSpace(strings.Join(kept, sep))
	}
	parts := []string{unquote(value)}
	for _, m := range more {
		if m = strings.TrimSpace(m); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, " ")
}

// unquote strips one pair of matching quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// String returns fields[key] as one string ("" when missing; a list's
// items joined with ", ").
func String(fields map[string]any, key string) string {
	switch v := fields[key].(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ", ")
	}
	return ""
}
