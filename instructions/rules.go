package instructions

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-dev/agent/commands"
)

// Rule is a rule of .claude/rules/ whose front matter scopes it to some
// files (`paths:`, glob patterns as Claude Code's: "**/*.ts",
// "src/**/*.{ts,tsx}").
type Rule struct {
	// Path is the rule's file, absolute; Name how it is named to the model.
	Path, Name string
	// Base is the directory its patterns are relative to: the directory
	// holding the .claude/rules it came from (the working directory for
	// the user's rules).
	Base string
	// Paths are its patterns, slash-separated.
	Paths []string
	// Text is its body, without the front matter.
	Text string
}

// maxRules caps the rule files read from one directory tree.
const maxRules = 200

// rules reads the rule files (*.md, sub-folders too, in name order) under
// dir; base is what their patterns are relative to. A rule without
// `paths:` joins the files of the prompt; one with them joins Rules.
func (r *reader) rules(dir, base string) {
	root, rel, _ := r.rootOf(dir)
	if root == nil {
		return
	}
	if fi, err := root.Stat(rel); err != nil || !fi.IsDir() {
		return
	}
	var files []string
	err := fs.WalkDir(root.FS(), filepath.ToSlash(rel), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && len(files) < maxRules {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return
	}
	sort.Strings(files)
	for _, p := range files {
		abs := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, filepath.ToSlash(rel)), "/")))
		text, name, ok := r.read(abs, false)
		if !ok {
			continue
		}
		front, body, err := commands.FrontMatter(text)
		if err != nil {
			r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: rule %s: %v", name, err))
			continue
		}
		paths, err := rulePaths(front)
		if err != nil {
			r.set.Warnings = append(r.set.Warnings, fmt.Sprintf("instructions: rule %s: %v", name, err))
			continue
		}
		body = strings.TrimSpace(body)
		if body == "" {
			continue
		}
		if len(paths) == 0 {
			if r.total+len(body) > MaxTotalBytes {
				r.leftOver = append(r.leftOver, name)
				continue
			}
			r.total += len(body)
			r.set.Files = append(r.set.Files, File{Path: abs, Name: name, Text: body})
			continue
		}
		r.set.Rules = append(r.set.Rules, Rule{Path: abs, Name: name, Base: base, Paths: paths, Text: body})
	}
}

// rulePaths reads a rule's `paths:` patterns (a list, or one pattern as a
// string); none when the front matter has none.
func rulePaths(front string) ([]string, error) {
	if strings.TrimSpace(front) == "" {
		return nil, nil
	}
	f, err := commands.Fields(front)
	if err != nil {
		return nil, err
	}
	var out []string
	switch v := f["paths"].(type) {
	case nil:
	case string:
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	case []string:
		out = append(out, v...)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	default:
		return nil, errors.New("paths: a list of glob patterns or one pattern")
	}
	for _, p := range out {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("paths: %q is not a glob pattern", p)
		}
	}
	return out, nil
}

// Match returns the rules whose patterns match the file at abs (an
// absolute path), in order.
func (s Set) Match(abs string) []Rule {
	var out []Rule
	for _, r := range s.Rules {
		rel, err := filepath.Rel(r.Base, filepath.Clean(abs))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, p := range r.Paths {
			if ok, _ := doublestar.Match(strings.TrimPrefix(p, "./"), rel); ok {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// Note is what the model is told of rules as a tool result touches files
// they match: each rule's text, naming its file and patterns; "" for none.
func Note(rules []Rule) string {
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "\n\n<instructions file=%q paths=%q>\n%s\n</instructions>", r.Name, strings.Join(r.Paths, ", "), r.Text)
	}
	return b.String()
}
