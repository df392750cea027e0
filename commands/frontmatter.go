package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Fields reads front matter as Claude Code does: as YAML (code.claude.com,
// "Slash commands", "Agent Skills", "Subagents"), a mapping of keys to
// values. A value is a string, a number (int or float64), a bool, a
// []string (a list of scalars), a []any (a list holding lists or maps),
// a map[string]any (hooks), or nil (a key without a value). Block
// scalars ("description: >" folds its lines, "|" keeps them) are their
// text.
//
// Where YAML refuses the text, Fields retries leniently, as Claude Code
// loads such files: each top-level plain value that holds a colon
// ("description: Use when: the build fails", very common in published
// agents), with the more indented lines that continue it, is quoted, and
// the text parsed again. The error, when that fails too, is YAML's for
// the text as written (it names the line). Text that is no mapping (a
// lone word) is an error.
func Fields(front string) (map[string]any, error) {
	if strings.TrimSpace(front) == "" {
		return map[string]any{}, nil
	}
	out, err := parseYAML(front)
	if err == nil {
		return out, nil
	}
	var quotedOut map[string]any
	if fixed, changed := quotePlainValues(front); changed {
		if out, err2 := parseYAML(fixed); err2 == nil {
			if allKnown(out) {
				return out, nil
			}
			quotedOut = out // lines of a value may have become keys: try the known keys first
		}
	}
	if fixed, changed := recoverKnownKeys(front); changed {
		if out, err2 := parseYAML(fixed); err2 == nil {
			return out, nil
		}
	}
	if quotedOut != nil {
		return quotedOut, nil
	}
	return nil, err
}

// isKnownKey reports whether k is a documented field as Claude Code's
// files spell them: starting in lower case ("Context:" in a description's
// example is prose, not the context field).
func isKnownKey(k string) bool {
	return knownKeys[key(k)] && k[0] >= 'a' && k[0] <= 'z'
}

// allKnown reports whether every key of fields is one Claude Code
// documents.
func allKnown(fields map[string]any) bool {
	for k := range fields {
		if !isKnownKey(k) {
			return false
		}
	}
	return true
}

// knownKeys are the fields Claude Code documents for commands, skills,
// agents, rules and output styles (compared as key does).
var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{"name", "description", "tools", "disallowedTools", "model", "permissionMode", "skills", "hooks",
		"memory", "color", "maxTurns", "mcpServers", "isolation", "max_budget_usd", "allowed-tools", "argument-hint", "arguments",
		"user-invocable", "disable-model-invocation", "context", "agent", "paths", "version", "license", "when_to_use",
		"effort", "keep-coding-instructions", "metadata", "compatibility"} {
		m[key(k)] = true
	}
	return m
}()

// recoverKnownKeys is the last lenient reading, for front matter whose
// value runs over lines that look like keys of their own or like nothing
// YAML knows (Anthropic's published agents give a description with blank
// lines, "<example>" tags and "user: ..." lines, unindented): a top-level
// line of a key Claude Code documents starts a field, and so does any
// key line that ends a block value (a "|" or ">" scalar, a list or a map
// under its key: their lines are indented); every other line belongs to
// the plain value before it. A field YAML does not take as written becomes
// one double-quoted string of its lines. changed is false when the text
// starts with no known key or nothing needed quoting.
func recoverKnownKeys(front string) (string, bool) {
	type field struct {
		lines []string
		block bool // its value is a block: it ends at an unindented line
	}
	var fields []field
	for _, l := range strings.Split(front, "\n") {
		m := topKey().FindStringSubmatch(strings.TrimRight(l, " \t\r"))
		ends := len(fields) > 0 && fields[len(fields)-1].block && l != "" && l[0] != ' ' && l[0] != '\t'
		if m != nil && (isKnownKey(m[1]) || ends) {
			v := strings.TrimSpace(m[2])
			fields = append(fields, field{lines: []string{l}, block: v == "" || v[0] == '|' || v[0] == '>'})
			continue
		}
		if len(fields) == 0 {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			return "", false
		}
		fields[len(fields)-1].lines = append(fields[len(fields)-1].lines, l)
	}
	var out []string
	changed := false
	for _, f := range fields {
		var probe any
		if decodeYAML(strings.Join(f.lines, "\n"), &probe) == nil {
			out = append(out, f.lines...)
			continue
		}
		m := topKey().FindStringSubmatch(strings.TrimRight(f.lines[0], " \t\r"))
		text := strings.TrimSpace(strings.Join(append([]string{m[2]}, f.lines[1:]...), "\n"))
		out = append(out, m[1]+": "+quoted(text))
		changed = true
	}
	return strings.Join(out, "\n"), changed
}

// parseYAML decodes front as a YAML mapping, its values normalised (see
// Fields).
func parseYAML(front string) (map[string]any, error) {
	var raw any
	if err := decodeYAML(front, &raw); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	if raw == nil {
		return map[string]any{}, nil
	}
	m, ok := normalise(raw).(map[string]any)
	if !ok {
		return nil, errors.New("front matter: not a set of key: value lines")
	}
	return m, nil
}

// maxKeys bounds the keys of one mapping of front matter (Claude Code's
// files have a few dozen at most).
const maxKeys = 256

// decodeYAML decodes text into out as yaml.Unmarshal does, but first
// refuses a mapping with more than maxKeys keys or with a key written
// twice: the decoder compares each key of a mapping with every other and
// words an error for each pair that is the same, so that a file of a few
// thousand "a: b" lines would take minutes and gigabytes to be refused.
func decodeYAML(text string, out *any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return err
	}
	if doc.Kind == 0 { // no document: empty, or comments alone
		*out = nil
		return nil
	}
	if err := checkMappings(&doc); err != nil {
		return err
	}
	return doc.Decode(out)
}

// checkMappings returns an error naming the first mapping below n (an
// alias's target is checked where it is written) that has too many keys
// or a key written twice.
func checkMappings(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		if len(n.Content)/2 > maxKeys {
			return fmt.Errorf("line %d: a mapping of more than %d keys", n.Line, maxKeys)
		}
		type keyOf struct {
			kind  yaml.Kind
			value string
		}
		seen := make(map[keyOf]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, ok := seen[keyOf{k.Kind, k.Value}]; ok {
				return fmt.Errorf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, first)
			}
			seen[keyOf{k.Kind, k.Value}] = k.Line
		}
	}
	if n.Kind == yaml.AliasNode {
		return nil
	}
	for _, c := range n.Content {
		if err := checkMappings(c); err != nil {
			return err
		}
	}
	return nil
}

// normalise turns what the YAML decoder gives into Fields' shapes: maps
// keyed by strings, lists of scalars as []string.
func normalise(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalise(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = normalise(e)
		}
		return m
	case []any:
		strs := make([]string, 0, len(v))
		for i, e := range v {
			v[i] = normalise(e)
			s, ok := scalar(v[i])
			if !ok {
				return v
			}
			strs = append(strs, s)
		}
		return strs
	}
	return v
}

// scalar is v as text when it is a string, a number or a bool.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// topKey is a top-level "key: value" line of front matter.
var topKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$`)
})

// quotePlainValues rewrites front so that each top-level value YAML
// refuses on its own (a plain value holding ": ", an argument-hint of
// "[file] [line]"), with its continuation lines (more indented, or blank
// between such lines), becomes one double-quoted string: lines joined with
// a space, a blank line kept as a line break (YAML's folding of a plain
// scalar). Block scalars, anchors, tags and values YAML takes are left as
// they are. changed is false when nothing needed it.
func quotePlainValues(front string) (string, bool) {
	lines := strings.Split(front, "\n")
	var out []string
	changed := false
	for i := 0; i < len(lines); i++ {
		m := topKey().FindStringSubmatch(strings.TrimRight(lines[i], " \t\r"))
		value := ""
		if m != nil {
			value = strings.TrimSpace(m[2])
		}
		if m == nil || value == "" || strings.ContainsRune("|>&*!#", rune(value[0])) {
			out = append(out, lines[i])
			continue
		}
		j := i + 1
		for k := i + 1; k < len(lines); k++ {
			l := lines[k]
			if strings.TrimSpace(l) == "" {
				continue
			}
			if l[0] != ' ' && l[0] != '\t' {
				break
			}
			j = k + 1
		}
		var probe any
		if decodeYAML(strings.Join(lines[i:j], "\n"), &probe) == nil {
			out = append(out, lines[i:j]...)
			i = j - 1
			continue
		}
		parts := []string{value}
		for _, l := range lines[i+1 : j] {
			parts = append(parts, strings.TrimSpace(l))
		}
		out = append(out, m[1]+": "+quoted(fold(parts)))
		changed = true
		i = j - 1
	}
	return strings.Join(out, "\n"), changed
}

// fold joins the lines of a plain scalar: a space between lines, a line
// break for each blank line.
func fold(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		switch {
		case l == "":
			b.WriteString("\n")
		case i > 0 && lines[i-1] != "":
			b.WriteString(" " + l)
		default:
			b.WriteString(l)
		}
	}
	return strings.TrimSpace(b.String())
}

// quoted is s as a double-quoted scalar (JSON's escapes are YAML's).
func quoted(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimRight(b.String(), "\n")
}

// key is k made comparable across Claude Code's spellings of one field:
// lower case, without "-" and "_" (disallowedTools, disallowed-tools and
// disallowed_tools are one).
func key(k string) string {
	// strings.Map, not a strings.Replacer per call: knownKeys calls this
	// in the package's init (a Replacer each time was 0.1 ms of every start).
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// Get returns the value of field name in fields, whatever its spelling
// (see key), and whether it is there.
func Get(fields map[string]any, name string) (any, bool) {
	if v, ok := fields[name]; ok {
		return v, true
	}
	want := key(name)
	for k, v := range fields {
		if key(k) == want {
			return v, true
		}
	}
	return nil, false
}

// SameField reports whether a and b name one field (see Get).
func SameField(a, b string) bool { return key(a) == key(b) }

// String returns field name as one string, trimmed: a number or a bool
// as written, a list's items joined with ", " (a one-key map in a list as
// "key: value"), "" when missing or a map.
func String(fields map[string]any, name string) string {
	v, _ := Get(fields, name)
	switch v := v.(type) {
	case []string:
		return strings.Join(v, ", ")
	case []any:
		var parts []string
		for _, e := range v {
			if s, ok := scalar(e); ok {
				parts = append(parts, s)
			}
			if m, ok := e.(map[string]any); ok { // [topic: foo | bar] holds a map
				for k, mv := range m {
					s, _ := scalar(mv)
					parts = append(parts, k+": "+s)
				}
			}
		}
		return strings.Join(parts, ", ")
	}
	s, _ := scalar(v)
	return strings.TrimSpace(s)
}

// List returns field name as a list: a YAML list, or a string split at
// commas outside parentheses ("Bash(a, b), Read" is two); items trimmed,
// empty ones dropped.
func List(fields map[string]any, name string) []string {
	v, _ := Get(fields, name)
	return split(v, false)
}

// ToolList returns field name as a list of tools: as List, and a string
// is also split at white space outside parentheses, since Claude Code's
// skills take "allowed-tools: Read Grep Bash(git diff *)" too.
func ToolList(fields map[string]any, name string) []string {
	v, _ := Get(fields, name)
	return split(v, true)
}

// split is List's and ToolList's reading of v.
func split(v any, spaces bool) []string {
	var out []string
	switch v := v.(type) {
	case string:
		depth, start := 0, 0
		for i, r := range v {
			switch {
			case r == '(':
				depth++
			case r == ')':
				depth--
			case depth == 0 && (r == ',' || spaces && (r == ' ' || r == '\t' || r == '\n')):
				out = append(out, v[start:i])
				start = i + 1
			}
		}
		out = append(out, v[start:])
	case []string:
		out = v
	case []any:
		for _, e := range v {
			if s, ok := scalar(e); ok {
				out = append(out, s)
			}
		}
	default:
		if s, ok := scalar(v); ok {
			out = []string{s}
		}
	}
	var clean []string
	for _, s := range out {
		if s = strings.TrimSpace(s); s != "" {
			clean = append(clean, s)
		}
	}
	return clean
}

// Bool returns field name as a bool: YAML's true and false, and, as
// Claude Code takes them, yes/no, on/off and 1/0 in any case. set is false
// when the field is missing; a value of another kind is an error naming
// the field.
func Bool(fields map[string]any, name string) (value, set bool, err error) {
	v, ok := Get(fields, name)
	if !ok || v == nil {
		return false, false, nil
	}
	s, _ := scalar(v)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true, nil
	case "false", "no", "off", "0":
		return false, true, nil
	}
	return false, true, fmt.Errorf("%s: %q is not true or false", name, s)
}

// Int returns field name as a whole number; set is false when it is
// missing, and a value that is not one is an error naming the field.
func Int(fields map[string]any, name string) (value int, set bool, err error) {
	v, ok := Get(fields, name)
	if !ok || v == nil {
		return 0, false, nil
	}
	s, _ := scalar(v)
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, true, fmt.Errorf("%s: %q is not a whole number", name, s)
	}
	return n, true, nil
}
