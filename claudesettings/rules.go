package claudesettings

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Kind is what a translated permission rule names.
type Kind int

const (
	// KindCommand is a command rule of agent's ([permissions]: a command
	// and its first words, "git diff").
	KindCommand Kind = iota
	// KindAllBash is every bash command (Claude Code's "Bash", "Bash(*)").
	KindAllBash
	// KindTool is a tool by agent's name, or an mcp__ glob.
	KindTool
	// KindDomain is web_fetch's domain rule, in agent's syntax
	// ("web_fetch(domain:example.com)").
	KindDomain
	// KindReadPath and KindEditPath are glob patterns of absolute paths
	// the file tools read (read_file, grep, list_files) or change
	// (edit_file, write_file).
	KindReadPath
	KindEditPath
)

// Rule is one of Claude Code's permission rules in agent's terms.
type Rule struct {
	Kind Kind
	// Value is the command, tool name, domain rule or path pattern.
	Value string
	// Literal, for a path rule, is the path itself when the pattern
	// names one file or directory ("./.env", "./secrets/**"), so that
	// commands can be kept from reading it too; "" for other patterns.
	Literal string
}

// Translate maps rule, in Claude Code's syntax (code.claude.com/docs/en/iam:
// "Bash", "Bash(npm run test:*)", "Read(./.env)", "Edit(/src/**)",
// "WebFetch(domain:example.com)", "mcp__github__*", "TodoWrite"), onto
// agent's rules. base is the directory relative paths start from ("./x"
// and "x": the working directory; "/x": the directory holding the
// settings file's .claude; "//x" is absolute, "~/x" under home). deny
// says the rule denies or asks: a pattern agent cannot express exactly is
// then widened (a command pattern cut at its first *), never narrowed;
// an allow rule agent cannot express is dropped. ok is false for a rule
// agent cannot honour at all; note, when not empty, says what differs.
func Translate(rule, dir, base, home string, deny bool) (r Rule, note string, ok bool) {
	rule = strings.TrimSpace(rule)
	name, arg, hasArg := strings.Cut(rule, "(")
	if hasArg {
		var closed bool
		if arg, closed = strings.CutSuffix(arg, ")"); !closed {
			return Rule{}, "not a rule: no closing parenthesis", false
		}
	}
	name, arg = strings.TrimSpace(name), strings.TrimSpace(arg)
	switch name {
	case "Bash":
		return bashRule(arg, deny)
	case "WebFetch":
		if arg == "" || arg == "*" {
			return Rule{Kind: KindDomain, Value: "web_fetch"}, "", true
		}
		return Rule{Kind: KindDomain, Value: "web_fetch(" + arg + ")"}, "", true
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS":
		if arg == "" || arg == "*" || arg == "**" {
			own, ok := tools.FromClaude(name)
			if !ok {
				return Rule{}, "agent has no tool for " + name, false
			}
			return Rule{Kind: KindTool, Value: own}, "", true
		}
		kind := KindReadPath
		if name == "Edit" || name == "Write" || name == "MultiEdit" || name == "NotebookEdit" {
			kind = KindEditPath
		}
		if !deny {
			return Rule{}, "a path rule that allows is not honoured (agent's file tools are allowed by mode, not by path)", false
		}
		pat := pathPattern(arg, dir, base, home)
		return Rule{Kind: kind, Value: pat, Literal: literalPath(pat)}, "", true
	}
	if strings.HasPrefix(name, "mcp__") {
		if arg != "" {
			return Rule{}, "an MCP rule takes no argument", false
		}
		if strings.Count(name, "__") == 1 { // a whole server
			name += "__*"
		}
		return Rule{Kind: KindTool, Value: name}, "", true
	}
	own, known := tools.FromClaude(name)
	if !known {
		return Rule{}, "agent has no tool for " + name, false
	}
	note = ""
	if arg != "" {
		if !deny {
			return Rule{}, fmt.Sprintf("%s(%s): agent cannot scope %s by its argument, so the allow rule is not applied", name, arg, name), false
		}
		note = fmt.Sprintf("%s(%s): applied to every call of %s", name, arg, own)
	}
	return Rule{Kind: KindTool, Value: own}, note, true
}

// bashRule maps Bash's argument (a command, "cmd:*" or a * pattern).
func bashRule(arg string, deny bool) (Rule, string, bool) {
	cmd := strings.TrimSpace(strings.TrimSuffix(arg, ":*"))
	if strings.HasSuffix(cmd, " *") {
		cmd = strings.TrimSpace(strings.TrimSuffix(cmd, "*"))
	}
	if cmd == "" || cmd == "*" {
		return Rule{Kind: KindAllBash}, "", true
	}
	i := strings.IndexAny(cmd, "*?")
	if i < 0 {
		note := ""
		if !strings.HasSuffix(arg, "*") {
			note = fmt.Sprintf("Bash(%s): agent's rule also matches the command with more arguments", arg)
		}
		return Rule{Kind: KindCommand, Value: cmd}, note, true
	}
	if !deny {
		return Rule{}, fmt.Sprintf("Bash(%s): agent's command rules cannot hold a * inside, so the allow rule is not applied", arg), false
	}
	prefix := strings.TrimSpace(cmd[:i])
	if prefix == "" || strings.ContainsAny(prefix, "*?") {
		return Rule{}, fmt.Sprintf("Bash(%s): agent's command rules cannot start with a *; the rule is not applied", arg), false
	}
	return Rule{Kind: KindCommand, Value: prefix}, fmt.Sprintf("Bash(%s): applied as %q, to every command that starts so", arg, prefix), true
}

// pathPattern makes a Read/Edit rule's pattern absolute (slash-separated).
// A pattern without a slash ("*.env") matches at any depth, as in
// gitignore.
func pathPattern(p, dir, base, home string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return filepath.ToSlash(filepath.Clean(p[1:]))
	case strings.HasPrefix(p, "~/"):
		return filepath.ToSlash(filepath.Join(home, p[2:]))
	case strings.HasPrefix(p, "/"):
		return filepath.ToSlash(filepath.Join(base, p[1:]))
	case strings.HasPrefix(p, "./"):
		return filepath.ToSlash(filepath.Join(dir, p[2:]))
	case !strings.Contains(p, "/"):
		return filepath.ToSlash(dir) + "/**/" + p
	}
	return filepath.ToSlash(filepath.Join(dir, p))
}

// literalPath is the path a pattern names, "" when it holds a glob other
// than a last "/**".
func literalPath(pat string) string {
	p := strings.TrimSuffix(pat, "/**")
	if strings.ContainsAny(p, "*?[{") {
		return ""
	}
	return filepath.FromSlash(p)
}
