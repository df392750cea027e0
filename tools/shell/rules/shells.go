package rules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Dialects a shell's -c string is parsed in. sh may be bash or dash, which
// tokenize some strings differently ($'...'), so both readings are checked.
var (
	bashLangs  = []syntax.LangVariant{syntax.LangBash}
	shLangs    = []syntax.LangVariant{syntax.LangPOSIX, syntax.LangBash}
	shellLangs = map[string][]syntax.LangVariant{
		"bash": bashLangs, "sh": shLangs, "dash": shLangs, "ash": shLangs,
		"zsh": {syntax.LangZsh, syntax.LangBash}, "ksh": {syntax.LangMirBSDKorn, syntax.LangBash},
		"mksh": {syntax.LangMirBSDKorn, syntax.LangBash},
	}
)

// uncheckedShells have syntax that hides commands from a bash reading (zsh
// glob qualifiers run code): their strings are checked for denied commands
// but always need approval.
var uncheckedShells = map[string]bool{"zsh": true, "ksh": true, "mksh": true}

// Shell options that change neither how a -c string is read nor what runs.
// -i, -s, -k (keyword), -D, -O and rc files are left out.
const shellFlags = "abefhlmnprtuvxBCEHPT"

var shellLong = map[string]bool{
	"--login": true, "--noprofile": true, "--norc": true, "--posix": true, "--restricted": true,
	"--verbose": true, "--noediting": true, "--help": true, "--version": true,
}

// harmlessShopts are shopt options that do not change what commands run.
var harmlessShopts = map[string]bool{
	"extglob": true, "nullglob": true, "failglob": true, "globstar": true, "dotglob": true,
	"nocaseglob": true, "nocasematch": true, "lastpipe": true, "inherit_errexit": true,
	"globasciiranges": true, "xpg_echo": true, "assoc_expand_once": true, "array_expand_once": true,
	"checkwinsize": true, "histappend": true, "cmdhist": true, "lithist": true,
}

// shell handles bash, sh and friends: with -c and a static string, the
// string is parsed and checked, and the shell itself needs no rule; reading a
// script or standard input, the shell is an ordinary command.
func (c *checker) shell(base string, args []arg) {
	cmode, i, err := shellOptions(args)
	if err != nil {
		c.cannotCheck(base, err)
		return
	}
	if !cmode || i >= len(args) {
		c.allowCheck(base, args)
		return
	}
	s := args[i]
	if !s.exact {
		c.ask(fmt.Sprintf("%s -c runs %s, which is not a static string", base, s.text))
		return
	}
	if uncheckedShells[base] {
		c.ask(fmt.Sprintf("%s -c strings are checked only for denied commands", base))
	}
	c.script(base+" -c", s.val, shellLangs[base])
}

// shellOptions scans a shell's options and reports whether -c was given and
// the index of the first operand (the -c string, or the script).
func shellOptions(args []arg) (cmode bool, i int, err error) {
	for i = 1; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			if cmode {
				return cmode, i, nil // taken as the -c string, which is then not static
			}
			return false, 0, fmt.Errorf("argument %s is not a static word", a.text)
		}
		v := a.val
		switch {
		case v == "-" || v == "--":
			return cmode, i + 1, nil
		case strings.HasPrefix(v, "--"):
			if !shellLong[v] {
				return false, 0, fmt.Errorf("unknown option %s", a.text)
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for j := 1; j < len(v); j++ {
				switch l := v[j]; {
				case l == 'c' && v[0] == '-':
					cmode = true
				case l == 'o' || l == 'O':
					if j != len(v)-1 || i+1 >= len(args) || !args[i+1].exact {
						return false, 0, fmt.Errorf("option -%c needs a static argument", l)
					}
					i++
					if name := args[i].val; (l == 'o' && name == "keyword") || (l == 'O' && !harmlessShopts[name]) {
						return false, 0, fmt.Errorf("option -%c %s", l, args[i].text)
					}
				case strings.IndexByte(shellFlags, l) < 0:
					return false, 0, fmt.Errorf("unknown option -%c", l)
				}
			}
		default:
			return cmode, i, nil
		}
	}
	return cmode, i, nil
}

// script parses src, a string run as code by what, in each of the dialects,
// and checks it with all the rules. Its commands are recorded from the first
// reading that parses.
func (c *checker) script(what, src string, langs []syntax.LangVariant) {
	if c.depth+1 > maxDepth {
		c.ask(fmt.Sprintf("%s nests strings run as code too deeply", what))
		return
	}
	recorded := false
	for _, lang := range langs {
		f, err := parse(src, lang)
		if err != nil {
			c.ask(fmt.Sprintf("cannot parse the string %s runs: %v", what, err))
			continue
		}
		if why := misread(src, f); why != "" {
			c.ask(fmt.Sprintf("the string %s runs holds %s", what, why))
		}
		sub := newChecker(c.set, src, c.depth+1)
		sub.record = c.record && !recorded
		sub.stmts(f.Stmts)
		c.merge(sub, sub.record)
		recorded = recorded || sub.record
	}
}

// evalOrTrap handles eval and trap, which run strings as code. Static
// strings are checked, so that denied commands in them are denied, but they
// always need approval.
func (c *checker) evalOrTrap(base string, args []arg) {
	rest := args[1:]
	if base == "trap" {
		if len(rest) > 0 && rest[0].exact && rest[0].val == "--" {
			rest = rest[1:]
		}
		if len(rest) == 0 || (rest[0].exact && (rest[0].val == "-" || rest[0].val == "" ||
			(strings.HasPrefix(rest[0].val, "-") && len(rest[0].val) > 1))) {
			// Lists, resets or ignores signals.
			c.allowCheck(base, args)
			return
		}
		rest = rest[:1]
		c.ask("trap runs code when a signal arrives")
	} else {
		c.ask("eval runs code that cannot be checked")
	}
	vals := make([]string, len(rest))
	for i, a := range rest {
		if !a.exact {
			return
		}
		vals[i] = a.val
	}
	c.script(base, strings.Join(vals, " "), bashLangs)
}
