package rules

import (
	"fmt"
	"slices"
	"strings"
)

// maxDepth bounds how deeply strings run as code (bash -c, eval, trap,
// watch) are parsed; anything deeper needs approval.
const maxDepth = 8

// checker walks one parsed command line and collects what decides the
// verdict.
type checker struct {
	set   *Set
	src   string // source text of the script being walked
	depth int    // nesting of strings run as code

	record    bool     // whether simple commands are recorded for display
	commands  []string // simple commands, for display
	denied    string   // reason of the first deny match, if any
	asks      []string // reasons that need approval, first first
	hidden    bool     // some reason in asks may hide a command (not just a file write)
	allowedBy []string // texts of the allow rules used, deduplicated
	unallowed []string // simple commands no allow rule matches
}

func newChecker(s *Set, src string, depth int) *checker {
	return &checker{set: s, src: src, depth: depth, record: true}
}

// ask notes something that needs approval because it cannot be checked:
// it may hide a command.
func (c *checker) ask(reason string) {
	c.hidden = true
	c.note(reason)
}

// askPlain notes something that needs approval without hiding any command
// from the rules: a file write, a program run by its path (whose name the
// deny rules still see).
func (c *checker) askPlain(reason string) { c.note(reason) }

func (c *checker) note(reason string) {
	if !slices.Contains(c.asks, reason) {
		c.asks = append(c.asks, reason)
	}
}

// deny notes a deny match; the first one is reported.
func (c *checker) deny(r rule, args []arg) {
	if c.denied == "" {
		c.denied = fmt.Sprintf("denied by rule %q: %s", r.text, joinArgs(args))
	}
}

func (c *checker) allowedByRule(r rule) {
	if !slices.Contains(c.allowedBy, r.text) {
		c.allowedBy = append(c.allowedBy, r.text)
	}
}

func (c *checker) noRule(args []arg) {
	s := joinArgs(args)
	if !slices.Contains(c.unallowed, s) {
		c.unallowed = append(c.unallowed, s)
	}
}

func (c *checker) recordCommand(args []arg) {
	if c.record {
		c.commands = append(c.commands, joinArgs(args))
	}
}

// merge adds the findings of a checker that walked a nested script.
// Commands are taken only when withCommands is set.
func (c *checker) merge(o *checker, withCommands bool) {
	if withCommands && c.record {
		c.commands = append(c.commands, o.commands...)
	}
	if c.denied == "" {
		c.denied = o.denied
	}
	for _, r := range o.asks {
		c.note(r)
	}
	c.hidden = c.hidden || o.hidden
	for _, t := range o.allowedBy {
		if !slices.Contains(c.allowedBy, t) {
			c.allowedBy = append(c.allowedBy, t)
		}
	}
	for _, u := range o.unallowed {
		if !slices.Contains(c.unallowed, u) {
			c.unallowed = append(c.unallowed, u)
		}
	}
}

// result turns the findings into a Result: deny wins, then anything that
// needs approval, then commands no rule allows; only a command line with at
// least one simple command, all allowed, is allowed.
func (c *checker) result() Result {
	res := Result{Verdict: Ask, Commands: c.commands}
	switch {
	case c.denied != "":
		res.Verdict, res.Reason = Deny, c.denied
	case len(c.asks) > 0:
		res.Reason = "needs approval: " + andMore(c.asks)
		res.Unresolved = c.hidden
	case len(c.unallowed) > 0:
		res.Reason = "no rule allows: " + andMore(c.unallowed)
	case len(c.commands) == 0 || len(c.allowedBy) == 0:
		res.Reason = "needs approval: no command to check"
	default:
		res.Verdict = Allow
		quoted := make([]string, len(c.allowedBy))
		for i, t := range c.allowedBy {
			quoted[i] = fmt.Sprintf("%q", t)
		}
		word := "rules"
		if len(quoted) == 1 {
			word = "rule"
		}
		res.Reason = fmt.Sprintf("allowed by %s %s", word, strings.Join(quoted, ", "))
	}
	res.Reason = oneLine(res.Reason)
	return res
}

// andMore shows the first item and how many others there are.
func andMore(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return fmt.Sprintf("%s (and %d more)", items[0], len(items)-1)
}

// oneLine replaces line breaks so that s prints on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}
