// Package rules decides whether a bash command line may run under the user's
// allow and deny lists of command rules.
//
// Rules match parsed commands, never string prefixes: the command line is
// parsed as bash and every simple command in it (in pipelines, lists,
// subshells, command and process substitutions, wrappers such as env, sudo,
// xargs and find -exec, and static bash -c strings) is matched on its own.
// Anything that cannot be resolved before the command runs needs approval.
package rules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Set is a compiled list of allow and deny rules. A Set is immutable and safe
// for concurrent use; a nil *Set behaves like an empty one.
type Set struct {
	allow []rule
	deny  []rule
}

// rule is one compiled rule: a command name and the literal words its first
// arguments must equal.
type rule struct {
	text  string
	name  string
	words []string
}

// Compile parses rules. A rule is a command name followed by zero or more
// literal argument words, written as shell words ("git status", "go test",
// "npm run lint", "rm"). It matches a simple command whose name equals the
// rule's name and whose first arguments equal the rule's further words, word
// by word: "git status" matches `git status -s` but neither `git stash` nor
// `git statusx`.
//
// Compile returns an error wrapping ErrInvalidRule, with the rule's text, for
// an empty rule, a rule that does not parse, or a rule with anything that is
// not a literal word ($, globs, redirections, ;, |, &&, a name with a /).
func Compile(allow, deny []string) (*Set, error) {
	s := &Set{}
	for _, text := range allow {
		r, err := compileRule(text)
		if err != nil {
			return nil, fmt.Errorf("allow rule %q: %w", text, err)
		}
		s.allow = append(s.allow, r)
	}
	for _, text := range deny {
		r, err := compileRule(text)
		if err != nil {
			return nil, fmt.Errorf("deny rule %q: %w", text, err)
		}
		s.deny = append(s.deny, r)
	}
	return s, nil
}

func compileRule(text string) (rule, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return rule{}, fmt.Errorf("%w: empty", ErrInvalidRule)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(text), "")
	if err != nil {
		return rule{}, fmt.Errorf("%w: %w", ErrInvalidRule, err)
	}
	if len(f.Stmts) != 1 || len(f.Last) > 0 {
		return rule{}, fmt.Errorf("%w: not a single command", ErrInvalidRule)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 || len(st.Redirs) > 0 ||
		len(st.Comments) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown ||
		st.Semicolon.IsValid() {
		return rule{}, fmt.Errorf("%w: not a simple command of literal words", ErrInvalidRule)
	}
	r := rule{text: text}
	for i, w := range call.Args {
		a := evalWord(text, w)
		if !a.exact {
			return rule{}, fmt.Errorf("%w: %s is not a literal word", ErrInvalidRule, a.text)
		}
		if i == 0 {
			r.name = a.val
		} else {
			r.words = append(r.words, a.val)
		}
	}
	if r.name == "" || strings.Contains(r.name, "/") {
		return rule{}, fmt.Errorf("%w: command name %q must be a bare name", ErrInvalidRule, r.name)
	}
	return r, nil
}

// Empty reports whether the set has no rules. A nil set is empty.
func (s *Set) Empty() bool {
	return s == nil || len(s.allow)+len(s.deny) == 0
}

// Denies reports whether the set has deny rules.
func (s *Set) Denies() bool { return s != nil && len(s.deny) > 0 }

func (s *Set) allowRules() []rule {
	if s == nil {
		return nil
	}
	return s.allow
}

func (s *Set) denyRules() []rule {
	if s == nil {
		return nil
	}
	return s.deny
}

// Verdict is the decision for a command line.
type Verdict int

const (
	// Ask means no rule decides: a person (or the permission mode) must.
	Ask Verdict = iota
	// Allow means every simple command is allowed by a rule and nothing
	// needs approval.
	Allow
	// Deny means some simple command matches a deny rule. Deny wins over
	// everything else.
	Deny
)

// String returns "ask", "allow" or "deny".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	default:
		return "ask"
	}
}

// Result is the outcome of Check.
type Result struct {
	Verdict Verdict
	// Reason is one line for the user and the model, such as
	// `denied by rule "rm": rm -rf x`, `allowed by rules "ls", "git status"`,
	// `needs approval: eval runs code that cannot be checked` or
	// `no rule allows: curl example.com`.
	Reason string
	// Commands are the simple commands found, in source order, each as its
	// words joined by spaces (static words by value, quoted when needed;
	// other words as their source text). A command run by a wrapper (env,
	// sudo, xargs, find -exec, bash -c ...) follows the wrapper's own entry.
	// For display only.
	Commands []string
	// Unresolved is true when the verdict is Ask because part of the
	// command line could not be checked (a command name known only at run
	// time, eval, a word that may complete a deny rule): such a line may
	// hide a command a deny rule names, so a caller that runs Ask lines
	// without a person must not run it when there are deny rules. It is
	// false for a line that is only not allowed by any rule. A line that
	// does not parse is Unresolved: bash may read it otherwise.
	Unresolved bool
}

// Check parses command as bash (mvdan.cc/sh/v3/syntax, LangBash) and decides
// whether it may run. Every simple command is found, including those in
// substitutions, run by wrappers (env, timeout, sudo, xargs, find -exec...)
// and in static strings run as code (bash -c, eval, trap, watch). The
// verdict is Deny when any of them matches a deny rule; otherwise Ask when
// anything cannot be resolved before the command runs (a dynamic command
// name, eval, source, a write redirection, a variable that changes what
// runs...) or some simple command matches no allow rule; otherwise Allow.
// A command that does not parse, or holds no simple command, gives Ask with
// the parse error or the reason in Reason. Check never panics; an internal
// failure gives Ask.
func (s *Set) Check(command string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Verdict: Ask, Reason: fmt.Sprintf("needs approval: internal error while checking: %v", r), Unresolved: true}
		}
	}()
	return s.check(command)
}

// check is Check without the panic guard, for tests and fuzzing.
func (s *Set) check(command string) Result {
	c := newChecker(s, command, 0)
	f, err := parse(command, syntax.LangBash)
	if err != nil {
		return Result{Verdict: Ask, Reason: oneLine("needs approval: cannot parse the command: " + err.Error()), Unresolved: true}
	}
	if why := misread(command, f); why != "" {
		c.ask("the command holds " + why)
	}
	c.stmts(f.Stmts)
	return c.result()
}

// parse parses src as a whole script in the given dialect.
func parse(src string, lang syntax.LangVariant) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
}

// misread returns why the parser may read src differently from bash, or "".
// The script is still walked, so that denied commands are found.
func misread(src string, f *syntax.File) string {
	if strings.ContainsAny(src, "\r\x00") {
		return "a carriage return or NUL byte, which bash and the checker may read differently"
	}
	// In double quotes the parser keeps a $ before a line continuation
	// literal; bash joins the lines, so "$\<newline>(cmd)" runs cmd.
	if strings.Contains(src, "$\\\n") {
		return "a $ before a line continuation, which bash and the checker read differently"
	}
	reason := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		// The parser continues a comment that ends with a backslash onto the
		// next line; bash ends it at the newline and runs that line.
		if cm, ok := n.(*syntax.Comment); ok && strings.Contains(cm.Text, "\n") {
			reason = "a comment ending with a backslash, which bash and the checker read differently"
		}
		return reason == ""
	})
	return reason
}
