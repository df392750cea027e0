package commands

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// RunFunc runs a !`command` snippet's command (in the sandbox) and returns
// its output; an error is put in the output's place.
type RunFunc func(ctx context.Context, command string) (string, error)

// Verdict is what may become of a snippet's command.
type Verdict int

// The verdicts of a JudgeFunc.
const (
	// SnippetAsk: nothing decides; the person is asked (Set.Ask), and
	// without one it is not run.
	SnippetAsk Verdict = iota
	// SnippetAllowed: the command's allowed-tools or the person's rules
	// allow it; a repository's command runs it once trusted.
	SnippetAllowed
	// SnippetReadOnly: every simple command of it only reads; it runs in
	// the read-only sandbox (Set.RunReadOnly), trusted or not.
	SnippetReadOnly
	// SnippetDenied: a deny rule denies it.
	SnippetDenied
)

// JudgeFunc decides a snippet's command of c; why says what decided (for
// a denial, the reason the person reads).
type JudgeFunc func(c Command, command string) (v Verdict, why string)

// AskFunc asks the person whether c's snippet may run command; it
// returns when ctx is cancelled.
type AskFunc func(ctx context.Context, c Command, command string) bool

// Set is the commands of a run and how their snippets run. Its zero value
// has no commands.
type Set struct {
	Commands []Command
	// Run runs the snippets that are allowed or that the person allowed;
	// nil runs none.
	Run RunFunc
	// RunReadOnly runs read-only snippets in the read-only sandbox; nil
	// (none is enforced) takes them for allowed ones.
	RunReadOnly RunFunc
	// Judge decides each snippet; nil decides by allowed-tools alone
	// (Allows: SnippetAllowed, else SnippetAsk).
	Judge JudgeFunc
	// Ask asks the person about a snippet nothing decides; nil runs none
	// of them (headless).
	Ask AskFunc
	// Trust says whether the person trusts a repository's command
	// (Project) to run snippets, the ones allowed: asked once per
	// expansion of a command that has some; nil trusts none. A
	// repository's snippets run only once trusted, as its hooks; read-only
	// ones run in the read-only sandbox all the same.
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
	matches := snippet().FindAllStringSubmatchIndex(c.Body, -1)
	commands := make([]string, len(matches))
	verdicts, whys := make([]Verdict, len(matches)), make([]string, len(matches))
	received := false
	var allowed []string
	for i, m := range matches {
		var r bool
		commands[i], r = a.substituteShell(snippetCommand(c.Body, m))
		received = received || r
		verdicts[i], whys[i] = s.judge(c, commands[i])
		if verdicts[i] == SnippetReadOnly && s.RunReadOnly == nil {
			verdicts[i] = SnippetAllowed // no read-only sandbox: as any allowed one
		}
		if verdicts[i] == SnippetAllowed {
			allowed = append(allowed, commands[i])
		}
	}
	untrusted := c.Project && len(allowed) > 0 && (s.Trust == nil || !s.Trust(ctx, c, allowed))
	var b strings.Builder
	last := 0
	for i, m := range matches {
		text, r := a.substitute(c.Body[last:m[0]])
		received = received || r
		b.WriteString(text)
		b.WriteString(s.snippetOutput(ctx, c, commands[i], verdicts[i], whys[i], untrusted, &e))
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
// judged v (why), noting in e what the person should know.
func (s *Set) snippetOutput(ctx context.Context, c Command, command string, v Verdict, why string, untrusted bool, e *Expansion) string {
	notRun := func(note string) string {
		e.Notes = append(e.Notes, fmt.Sprintf("/%s: !`%s` was not run: %s", c.Name, command, note))
		return fmt.Sprintf("(not run: %s)", command)
	}
	run := s.Run
	switch {
	case v == SnippetDenied:
		return notRun(why)
	case v == SnippetReadOnly:
		run = s.RunReadOnly
	case v == SnippetAllowed && untrusted:
		return notRun(fmt.Sprintf("it is the repository's command (%s) and you have not trusted it to run commands", c.Path))
	case v == SnippetAllowed:
	case s.Ask == nil:
		return notRun(fmt.Sprintf("neither its allowed-tools nor your rules allow it, and nobody can be asked here (add Bash(%s:*) to its allowed-tools)", firstWords(command)))
	case !s.Ask(ctx, c, command):
		return notRun("you did not allow it")
	}
	if run == nil {
		return notRun("commands cannot run here")
	}
	out, err := run(ctx, command)
	if err != nil {
		e.Notes = append(e.Notes, fmt.Sprintf("/%s: !`%s`: %v", c.Name, command, err))
		return fmt.Sprintf("(%s failed: %v)", command, err)
	}
	return strings.TrimRight(out, "\n")
}

// judge is s.Judge's verdict on command, or without one, allowed-tools'.
func (s *Set) judge(c Command, command string) (Verdict, string) {
	if s.Judge != nil {
		return s.Judge(c, command)
	}
	if Allows(c.AllowedTools, command) {
		return SnippetAllowed, "allowed-tools"
	}
	return SnippetAsk, ""
}

// snippet is a !`command` in a body, or a fenced block of commands
// opened with ```! (Claude Code's two forms of dynamic context).
var snippet = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?m)^```![ \t]*\n((?s:.*?))\n```[ \t]*$|!`([^`\n]+)`")
})

// snippetCommand is the command of the snippet match m (of
// snippet().FindAllStringSubmatchIndex) in body: the fenced block's lines,
// or the inline snippet's text.
func snippetCommand(body string, m []int) string {
	if m[2] >= 0 {
		return body[m[2]:m[3]]
	}
	return body[m[4]:m[5]]
}

// Allows reports whether allowed-tools entries let command run: "Bash"
// allows every command, "Bash(git status:*)" those that start with "git
// status" (as a word), "Bash(git diff)" exactly that command.
func Allows(allowed []string, command string) bool {
	command = unquoteProgram(strings.TrimSpace(command))
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

// unquoteProgram takes the quotes off command's first word when they
// hold a plain path (`"/plugins/x/setup.sh" --flag`, as a plugin quotes
// ${CLAUDE_PLUGIN_ROOT}), so that allowed-tools' prefix names it.
func unquoteProgram(command string) string {
	if command == "" || (command[0] != '"' && command[0] != '\'') {
		return command
	}
	end := strings.IndexByte(command[1:], command[0])
	if end < 0 {
		return command
	}
	word := command[1 : 1+end]
	if word == "" || strings.ContainsAny(word, "$`\\ \t\n;&|<>()*?[]{}~'\"") {
		return command
	}
	return word + command[2+end:]
}

// chained reports whether the rest of an allowed command line starts
// other commands or writes a file (a prefix rule allows one command's
// arguments, not "git status; rm -rf x", a process substitution "<(cmd)",
// ">(cmd)", nor a redirection "> ~/.bashrc").
func chained(rest string) bool {
	return strings.ContainsAny(rest, ";&|`\n>") || strings.Contains(rest, "$(") ||
		strings.Contains(rest, "<(") || strings.Contains(rest, ">(")
}

func firstWords(command string) string {
	f := strings.Fields(command)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}
