package rules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellState handles builtins that change the shell's state in ways that
// change what later commands run, or that run code from elsewhere.
func (c *checker) shellState(base string, args []arg) {
	switch base {
	case "source", ".":
		c.ask(fmt.Sprintf("%s runs a file that cannot be checked", base))
	case "enable":
		c.ask("enable changes which builtins run")
	case "fc":
		c.ask("fc runs commands from the history")
	case "let":
		c.ask("let evaluates arithmetic, which can run code hidden in a variable")
	case "alias":
		for _, a := range args[1:] {
			if !a.exact || strings.Contains(a.val, "=") {
				c.ask("alias changes what later commands run")
				break
			}
		}
	case "compgen", "complete":
		// -W expands its word list; -C and -F run commands and functions.
		c.optionLetters(base, args[1:], "WCF", "runs code from its arguments")
	case "hash":
		c.optionLetters(base, args[1:], "p", "changes which program a name runs")
	case "set":
		c.setBuiltin(args[1:])
	case "shopt":
		c.shopt(args[1:])
	}
	c.allowCheck(base, args)
}

// optionLetters asks when any option cluster in args holds one of letters,
// or when an argument is not static and so could be such an option.
func (c *checker) optionLetters(base string, args []arg, letters, why string) {
	for _, a := range args {
		if !a.exact || (strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") &&
			strings.ContainsAny(a.val, letters)) {
			c.ask(fmt.Sprintf("%s %s %s", base, a.text, why))
			return
		}
	}
}

// setBuiltin asks for set -k (keyword), which turns assignments anywhere in
// later commands into environment variables.
func (c *checker) setBuiltin(args []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			c.ask(fmt.Sprintf("set %s may change shell options", a.text))
			return
		}
		v := a.val
		if v == "--" || v == "-" || len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			return
		}
		if strings.ContainsRune(v[1:], 'k') {
			c.ask("set -k changes how later commands read assignments")
			return
		}
		if strings.HasSuffix(v, "o") && i+1 < len(args) {
			i++
			if n := args[i]; !n.exact || n.val == "keyword" {
				c.ask(fmt.Sprintf("set -o %s may change how later commands are read", n.text))
				return
			}
		}
	}
}

// shopt asks when an option that is not known to be harmless is set or
// unset, such as expand_aliases.
func (c *checker) shopt(args []arg) {
	setting, setOpts := false, false
	for _, a := range args {
		if !a.exact {
			c.ask(fmt.Sprintf("shopt %s may change shell options", a.text))
			return
		}
		if strings.HasPrefix(a.val, "-") {
			setting = setting || strings.ContainsAny(a.val, "su")
			setOpts = setOpts || strings.ContainsRune(a.val, 'o')
			continue
		}
		harmless := harmlessShopts[a.val]
		if setOpts {
			harmless = a.val != "keyword"
		}
		if setting && !harmless {
			c.ask(fmt.Sprintf("shopt %s changes how later commands run", a.text))
			return
		}
	}
}

// Option tables of builtins that take variable names. Bash evaluates array
// subscripts in such names, running any command substitution in them.
var varNameSpecs = map[string]optSpec{
	"read":      {short: shortOpts("ers", "adinNptu", "")},
	"mapfile":   {short: shortOpts("t", "dnOscuC", "")},
	"readarray": {short: shortOpts("t", "dnOscuC", "")},
	"unset":     {short: shortOpts("fvn", "", "")},
	"wait":      {short: shortOpts("fn", "p", "")},
}

// varNames handles builtins that assign to or look up variables by name:
// every name must be a plain, harmless variable name.
func (c *checker) varNames(base string, args []arg) {
	c.allowCheck(base, args)
	switch base {
	case "printf":
		if len(args) < 2 {
			return
		}
		switch a := args[1]; {
		case !a.exact:
			c.ask(fmt.Sprintf("printf %s may be -v with a name that runs code", a.text))
		case a.val == "-v" && len(args) > 2:
			c.varName(base, args[2])
		case strings.HasPrefix(a.val, "-v"):
			c.varName(base, literalArg(a.val[2:]))
		}
		return
	case "getopts":
		for _, a := range args[1:] {
			if !a.exact {
				c.ask(fmt.Sprintf("getopts %s may be a name that runs code", a.text))
				return
			}
		}
		if len(args) > 2 {
			c.varName(base, args[2])
		}
		return
	}
	opts, rest, err := parseOpts(args[1:], varNameSpecs[base])
	if err != nil {
		c.cannotCheck(base, err)
		return
	}
	for _, o := range opts {
		switch {
		case o.name == "C":
			c.ask(base + " -C runs a callback")
		case (o.name == "a" && base == "read") || (o.name == "p" && base == "wait"):
			c.varName(base, literalArg(o.val))
		}
	}
	if base == "wait" {
		return
	}
	for _, a := range rest {
		c.varName(base, a)
	}
}

// varName asks unless a is a plain variable name, and notes the variables
// that change what commands run.
func (c *checker) varName(base string, a arg) {
	if !a.exact || !isIdent(a.val) {
		c.ask(fmt.Sprintf("%s with the variable name %s, which can run code", base, a.text))
		return
	}
	if base != "unset" {
		c.setsVar(a.val)
	}
}

// test handles test and [: -v and -R evaluate array subscripts in their
// operand, and an unknown word may be -v.
func (c *checker) test(base string, args []arg) {
	c.allowCheck(base, args)
	words := args[1:]
	if n := len(words); base == "[" && n > 0 && words[n-1].exact && words[n-1].val == "]" {
		words = words[:n-1]
	}
	for i, a := range words {
		if !a.single {
			c.ask(fmt.Sprintf("%s with %s, which may become several words", base, a.text))
			return
		}
		mayBeV := !a.exact || a.val == "-v" || a.val == "-R"
		if mayBeV && i+1 < len(words) {
			if next := words[i+1]; !next.exact || strings.Contains(next.val, "[") {
				c.ask(fmt.Sprintf("%s -v on a name that is not a plain variable can run code", base))
				return
			}
		}
	}
}

// declFlags are the options of each declaration builtin that do not change
// how later assignments are evaluated (-i makes them arithmetic, -n makes
// names references).
var declFlags = map[string]string{
	"declare": "aAfFgIlprtux", "typeset": "aAfFgIlprtux", "local": "aAfFgIlprtux",
	"export": "fnp", "readonly": "aAfp",
}

// declWords checks the words of a declaration builtin.
func (c *checker) declWords(variant string, words []arg) {
	flags, ok := declFlags[variant]
	if !ok {
		c.ask(variant + " declares name references")
		return
	}
	for _, a := range words {
		if !a.exact {
			c.ask(fmt.Sprintf("%s with %s, which is not a static word", variant, a.text))
			continue
		}
		v := a.val
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			if strings.Trim(v[1:], flags) != "" {
				c.ask(fmt.Sprintf("%s %s changes how values are evaluated", variant, a.text))
			}
			continue
		}
		name, val, hasVal := strings.Cut(v, "=")
		name = strings.TrimSuffix(name, "+")
		switch {
		case !isIdent(name):
			c.ask(fmt.Sprintf("%s with the name %s, which can run code", variant, a.text))
		case hasVal && strings.HasPrefix(val, "("):
			c.ask(fmt.Sprintf("%s with the array value %s, which can run code", variant, a.text))
		case hasVal:
			c.setsVar(name)
		}
	}
}

// declClause checks declare, local, export, readonly and typeset as the
// parser reads them. They are not commands that need a rule, but a deny rule
// naming them applies.
func (c *checker) declClause(x *syntax.DeclClause) {
	variant := x.Variant.Value
	args := []arg{literalArg(variant)}
	for _, a := range x.Args {
		args = append(args, evalAssign(c.src, a))
		if a.Naked && a.Name == nil && a.Value != nil {
			c.word(a.Value)
			c.declWords(variant, []arg{evalWord(c.src, a.Value)})
			continue
		}
		c.assign(a)
	}
	if _, ok := declFlags[variant]; !ok {
		c.ask(variant + " declares name references")
	}
	c.denyCheck(variant, args)
}

// evalAssign shows an assignment argument of a declaration as a word.
func evalAssign(src string, a *syntax.Assign) arg {
	switch {
	case a.Name == nil:
		return evalWord(src, a.Value)
	case a.Naked:
		return literalArg(a.Name.Value)
	case a.Index == nil && a.Array == nil:
		v := evalWord(src, a.Value)
		if v.exact {
			return literalArg(a.Name.Value + "=" + v.val)
		}
	}
	text := sourceText(src, a)
	return arg{val: text, text: text}
}
