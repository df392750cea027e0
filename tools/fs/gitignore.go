package fs

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// An ignoreRule is one line of a .gitignore file, in the form
// https://git-scm.com/docs/gitignore describes.
type ignoreRule struct {
	pattern  string // doublestar pattern; literal when !glob
	glob     bool   // pattern has wildcards
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	anchored bool   // contains a "/": matched against the path below the .gitignore's directory, else against the name
	inside   bool   // "dir/**": matches what is below dir but not dir itself
}

// ignoreLayer is the rules of one .gitignore file; layers form a stack from
// the deepest directory up to the root.
type ignoreLayer struct {
	base   string // slash path of the .gitignore's directory relative to the root, "" for the root
	rules  []ignoreRule
	parent *ignoreLayer
}

// parseIgnore parses the text of a .gitignore file.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" || s[0] == '#' {
			continue
		}
		s = trimTrailingSpaces(s)
		var r ignoreRule
		if s[0] == '!' {
			r.negate, s = true, s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly, s = true, strings.TrimRight(s, "/")
		}
		if strings.HasPrefix(s, "/") {
			r.anchored, s = true, s[1:]
		}
		if s == "" {
			continue
		}
		r.anchored = r.anchored || strings.Contains(s, "/")
		r.inside = strings.HasSuffix(s, "/**")
		r.pattern, r.glob = toDoublestar(s)
		if r.glob && !doublestar.ValidatePattern(r.pattern) {
			continue // git ignores what it cannot parse; so do we
		}
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces removes trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// toDoublestar turns a gitignore glob into a doublestar pattern (braces are
// literal in gitignore) and reports whether it has wildcards at all; a
// pattern without them is returned unescaped, for plain comparison.
func toDoublestar(s string) (string, bool) {
	if !strings.ContainsAny(s, `*?[\`) {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// match reports whether the rule matches rel, the slash path below the
// rule's .gitignore directory, whose last element is name.
func (r *ignoreRule) match(rel, name string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	subject := name
	if r.anchored {
		subject = rel
	}
	if !r.glob {
		return subject == r.pattern
	}
	if r.inside && subject == strings.TrimSuffix(r.pattern, "/**") {
		return false
	}
	ok, _ := doublestar.Match(r.pattern, subject)
	return ok
}

// ignored reports whether the entry at rel (slash path relative to the root,
// last element name) is excluded: the last matching rule of the deepest
// .gitignore that has one decides.
func (l *ignoreLayer) ignored(rel, name string, isDir bool) bool {
	for ; l != nil; l = l.parent {
		sub := rel
		if l.base != "" {
			sub = rel[len(l.base)+1:]
		}
		for i := len(l.rules) - 1; i >= 0; i-- {
			if r := &l.rules[i]; r.match(sub, name, isDir) {
				return !r.negate
			}
		}
	}
	return false
}

// push returns the stack with the rules of the .gitignore in base on top, or
// l itself when there are none.
func (l *ignoreLayer) push(base string, rules []ignoreRule) *ignoreLayer {
	if len(rules) == 0 {
		return l
	}
	return &ignoreLayer{base: base, rules: rules, parent: l}
}
