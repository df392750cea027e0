package commands

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// RunFunc runs a !`command` snippet's command (in the sandbox) and returns
// its output; an error is put in the output's place.
type RunFunc func(ctx context.Context, command string) (string, error)

// Set is the commands of a run and how their snippets run. Its zero value
// has no commands.
type Set struct {
	Commands []Command
	// Run runs the snippets allowed-tools allows; nil runs none.
	Run RunFunc
	// Trust says whether the person trusts a repository's command
	// (Project) to run snippets, the ones its allowed-tools allow: asked
	// once per expansion of a command that has some; nil trusts none. A
	// repository's snippets run only once trusted, as its hooks.
	Trust func(ctx context.Context, c Command, snippets []string) bool
}

// Find returns the command called name (without its slash).
func (s *Set) Find(name string) (Command, bool) {
	if s == nil {
		return Command{}, false
	}
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Expansion is a prompt after its command was expanded.
type Expansion struct {
	// Command is the command the prompt named.
	Command Command
	// Text is the prompt to send.
	Text string
	// Notes say what happened that the person should know: a snippet
	// that was not allowed or failed.
	Notes []string
}

// Expand expands prompt when it starts with a custom command ("/review
// main.go"); ok is false for any other prompt, which is sent as it is.
// The arguments (the text after the command) go into the body as
// Substitute puts them; each !`command` snippet is run when the command's
// allowed-tools allow it, and its output takes its place; @path mentions
// are left for the turn runner to attach.
func (s *Set) Expand(ctx context.Context, prompt string) (Expansion, bool) {
	trimmed := strings.TrimSpace(prompt)
	if !strings.HasPrefix(trimmed, "/") {
		return Expansion{}, false
	}
	name, args, _ := strings.Cut(trimmed[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], name[i:]+" "+args
	}
	c, ok := s.Find(name)
	if !ok {
		return Expansion{}, false
	}
	args = strings.TrimSpace(args)
	e := Expansion{Command: c}
	// The snippets are the body's: the arguments go into their commands
	// and around them, and a !`command` in the arguments stays text.
	a := newArguments(c, args)
	matches := snippet.FindAllStringSubmatchIndex(c.Body, -1)
	commands := make([]string, len(matches))
	received := false
	for i, m := range matches {
		var r bool
		commands[i], r = a.substitute(c.Body[m[2]:m[3]])
		received = received || r
	}
	untrusted := c.Project && !s.trusts(ctx, c, commands)
	var b strings.Builder
	last := 0
	for i, m := range matches {
		text, r := a.substitute(c.Body[last:m[0]])
		received = received || r
		b.WriteString(text)
		b.WriteString(s.snippetOutput(ctx, c, commands[i], untrusted, &e))
		last = m[1]
	}
	text, r := a.substitute(c.Body[last:])
	b.WriteString(text)
	if !received && !r && args != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	e.Text = b.String()
	return e, true
}

// snippetOutput is what takes the place of the snippet running command,
// noting in e what the person should know.
func (s *Set) snippetOutput(ctx context.Context, c Command, command string, untrusted bool, e *Expansion) string {
	if untrusted && Allows(c.AllowedTools, command) {
		e.Notes = append(e.Notes, fmt.Sprintf("/%s: !`%s` was not run: it is the repository's command (%s) and you have not trusted it to run commands", c.Name, command, c.Path))
		return fmt.Sprintf("(not run: %s)", command)
	}
	out, note := s.runSnippet(ctx, c, command)
	if note != "" {
		e.Notes = append(e.Notes, note)
	}
	return out
}

// trusts asks s.Trust about the commands c's allowed-tools allow; true
// when there are none.
func (s *Set) trusts(ctx context.Context, c Command, commands []string) bool {
	var allowed []string
	for _, command := range commands {
		if Allows(c.AllowedTools, command) {
			allowed = append(allowed, command)
		}
	}
	if len(allowed) == 0 {
		return true
	}
	return s.Trust != nil && s.Trust(ctx, c, allowed)
}

// snippet is a !`command` in a body.
var snippet = regexp.MustCompile("!`([^`\n]+)`")

// runSnippet runs one snippet of c when its allowed-tools allow it, and
// returns what takes its place and a note for the person ("" when it ran
// well).
func (s *Set) runSnippet(ctx context.Context, c Command, command string) (string, string) {
	if !Allows(c.AllowedTools, command) {
		note := fmt.Sprintf("/%s: !`%s` was not run: the command's allowed-tools do not allow it (add Bash(%s:*))", c.Name, command, firstWords(command))
		return fmt.Sprintf("(not run: %s)", command), note
	}
	if s.Run == nil {
		return fmt.Sprintf("(not run: %s)", command), fmt.Sprintf("/%s: !`%s` was not run: commands cannot run here", c.Name, command)
	}
	out, err := s.Run(ctx, command)
	if err != nil {
		return fmt.Sprintf("(%s failed: %v)", command, err), fmt.Sprintf("/%s: !`%s`: %v", c.Name, command, err)
	}
	return strings.TrimRight(out, "\n"), ""
}

// Allows reports whether allowed-tools entries let command run: "Bash"
// allows every command, "Bash(git status:*)" those that start with "git
// status" (as a word), "Bash(git diff)" exactly that command.
func Allows(allowed []string, command string) bool {
	command = strings.TrimSpace(command)
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "Bash" || a == "bash" || a == "Bash(*)" {
			return true
		}
		inner, ok := strings.CutPrefix(a, "Bash(")
		if !ok {
			continue
		}
		inner = strings.TrimSuffix(inner, ")")
		if prefix, ok := strings.CutSuffix(inner, ":*"); ok {
			prefix = strings.TrimSpace(prefix)
			if command == prefix || strings.HasPrefix(command, prefix+" ") {
				return !chained(command[len(prefix):])
			}
			continue
		}
		if command == strings.TrimSpace(inner) {
			return true
		}
	}
	return false
}

// chained reports whether the rest of an allowed command line starts
// other commands (a prefix rule allows one command's arguments, not
// "git status; rm -rf x", nor a process substitution "<(cmd)", ">(cmd)").
func chained(rest string) bool {
	return strings.ContainsAny(rest, ";&|`\n") || strings.Contains(rest, "$(") ||
		strings.Contains(rest, "<(") || strings.Contains(rest, ">(")
}

func firstWords(command string) string {
	f := strings.Fields(command)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}
