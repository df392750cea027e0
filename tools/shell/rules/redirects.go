package rules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirect checks a redirection: output to files needs approval, since an
// allowed command must not be able to overwrite arbitrary files.
func (c *checker) redirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		c.setsVar(strings.TrimSuffix(strings.TrimPrefix(r.N.Value, "{"), "}"))
	}
	c.word(r.Word)
	if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
		c.heredoc(r)
		return
	}
	target := evalWord(c.src, r.Word)
	switch r.Op {
	case syntax.RdrIn:
		// Bash opens network connections for /dev/tcp/HOST/PORT.
		if !target.exact {
			c.ask(fmt.Sprintf("reads from %s, which is named at run time and may be a network connection", target.text))
		} else if isNetPath(target.val) {
			c.ask(fmt.Sprintf("opens the network connection %s", target.text))
		}
	case syntax.WordHdoc:
	case syntax.DplIn:
		if !target.exact || (target.val != "-" && !isInt(target.val)) {
			c.ask(fmt.Sprintf("redirection %s%s does not name a file descriptor", r.Op, target.text))
		}
	case syntax.DplOut:
		// >&word with a word that is not a descriptor writes to a file.
		if !target.exact || (target.val != "-" && !isInt(target.val)) {
			c.writes(r.Op, target)
		}
	default:
		c.writes(r.Op, target)
	}
}

// harmlessTargets are files that redirecting output to does not modify.
var harmlessTargets = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

func (c *checker) writes(op syntax.RedirOperator, target arg) {
	if target.exact && harmlessTargets[target.val] {
		return
	}
	if target.exact && isNetPath(target.val) {
		c.ask(fmt.Sprintf("opens the network connection %s", target.text))
		return
	}
	if !target.exact {
		c.ask(fmt.Sprintf("writes to %s (redirection %s)", target.text, op)) // a target known at run time may hide a command substitution's effect
		return
	}
	c.askPlain(fmt.Sprintf("writes to %s (redirection %s)", target.text, op))
}

// heredoc walks a here-document. Bash ends the body at the first line equal
// to the delimiter, even inside a $(...) that spans lines, while the parser
// reads the substitution whole: a body holding its delimiter line is read
// differently, and needs approval.
func (c *checker) heredoc(r *syntax.Redirect) {
	c.wordIn(r.Hdoc, true)
	delim := evalWord(c.src, r.Word)
	if !delim.exact {
		c.ask(fmt.Sprintf("here-document delimiter %s is not a static word", delim.text))
		return
	}
	if r.Hdoc == nil {
		return
	}
	body := sourceText(c.src, r.Hdoc)
	if !quotedWord(r.Word) && strings.Contains(body, "\\\n") {
		// Bash joins continued lines before looking for the end line.
		c.ask("here-document body holds a line continuation")
		return
	}
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		if r.Op == syntax.DashHdoc {
			line = strings.TrimLeft(line, "\t")
		}
		// The parser's body ends with the end line itself.
		if line == delim.val && i < len(lines)-1 {
			c.ask(fmt.Sprintf("here-document body holds its end line %s", delim.text))
			return
		}
	}
}

// quotedWord reports whether any part of w is quoted or escaped, as in a
// here-document delimiter that turns off expansion in the body.
func quotedWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// isNetPath reports whether bash treats a redirection target as a network
// connection.
func isNetPath(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}
