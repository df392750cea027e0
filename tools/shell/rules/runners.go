package rules

import (
	"fmt"
	"strings"
)

// Option tables of the gated runners and xargs.
var runnerSpecs = map[string]optSpec{
	// -h (help or host) is ambiguous and left out.
	"sudo": {
		short: shortOpts("AbEeHiKklNnPSsVv", "CDgpRrTtUu", ""),
		long: map[string]optKind{"askpass": noArg, "background": noArg, "bell": noArg, "chdir": requiredArg,
			"close-from": requiredArg, "preserve-env": optionalArg, "edit": noArg, "group": requiredArg,
			"set-home": noArg, "login": noArg, "remove-timestamp": noArg, "reset-timestamp": noArg,
			"list": noArg, "non-interactive": noArg, "preserve-groups": noArg, "prompt": requiredArg,
			"chroot": requiredArg, "role": requiredArg, "stdin": noArg, "shell": noArg, "type": requiredArg,
			"command-timeout": requiredArg, "other-user": requiredArg, "user": requiredArg,
			"version": noArg, "validate": noArg, "help": noArg},
	},
	"doas": {short: shortOpts("Lns", "uC", "")},
	// --process-slot-var sets a variable and is left out.
	"xargs": {
		short: shortOpts("0prtxo", "aEdILnPs", "eil"),
		long: map[string]optKind{"null": noArg, "arg-file": requiredArg, "delimiter": requiredArg,
			"eof": optionalArg, "replace": optionalArg, "max-lines": optionalArg, "max-args": requiredArg,
			"max-procs": requiredArg, "interactive": noArg, "no-run-if-empty": noArg,
			"max-chars": requiredArg, "verbose": noArg, "exit": noArg, "open-tty": noArg,
			"show-limits": noArg, "help": noArg, "version": noArg},
	},
	"watch": {
		short: shortOpts("bcCegptwxr", "nqs", "d"),
		long: map[string]optKind{"beep": noArg, "color": noArg, "no-color": noArg, "differences": optionalArg,
			"errexit": noArg, "chgexit": noArg, "interval": requiredArg, "precise": noArg, "no-title": noArg,
			"no-wrap": noArg, "exec": noArg, "equexit": requiredArg, "no-rerun": noArg,
			"shotsdir": requiredArg, "help": noArg, "version": noArg},
	},
}

// sudo and doas run a command with other privileges: the whole command must
// be allowed by a rule for sudo (or doas), and the command it runs as well.
func (c *checker) sudo(base string, args []arg) {
	opts, rest, err := parseOpts(args[1:], runnerSpecs[base])
	if err != nil {
		c.cannotCheck(base, err)
		return
	}
	switch {
	case hasOpt(opts, "s", "i", "e", "shell", "login", "edit"):
		c.ask(fmt.Sprintf("%s with a shell or an editor is not checked", base))
		return
	case hasOpt(opts, "l", "list", "v", "validate", "K", "remove-timestamp", "V", "version", "help", "C", "L"):
		// Lists, validates or checks without running a command.
		c.allowCheck(base, args)
		return
	}
	inner := rest
	if base == "sudo" {
		var ok bool
		if inner, ok = c.envAssignments(base, rest); !ok {
			return
		}
	}
	c.runs(base, args, inner, true)
}

// xargs runs a command (echo by default) with arguments read from its
// input added at the end, or, with -I, -i or --replace, put in place of the
// replacement string.
func (c *checker) xargs(args []arg) {
	opts, inner, err := parseOpts(args[1:], runnerSpecs["xargs"])
	if err != nil {
		c.cannotCheck("xargs", err)
		return
	}
	if hasOpt(opts, "help", "version", "show-limits") {
		c.allowCheck("xargs", args)
		return
	}
	replace := ""
	for _, o := range opts {
		switch o.name {
		case "I":
			replace = o.val
		case "i", "replace":
			replace = "{}"
			if o.hasVal {
				replace = o.val
			}
		}
	}
	if len(inner) == 0 {
		inner = []arg{literalArg("echo")}
	}
	if replace != "" {
		inner = replaced(inner, replace)
	} else {
		// The words read from the input follow the given ones: an inner
		// command with no command of its own (xargs env, xargs sh -c) runs
		// what the input says.
		inner = append(inner[:len(inner):len(inner)], inputArgs)
	}
	c.call(inner)
}

// inputArgs stands for the words xargs reads from its input.
var inputArgs = arg{val: "...", text: "..."}

// replaced marks the words that hold s as unknown, since a program replaces
// s in them at run time.
func replaced(args []arg, s string) []arg {
	out := make([]arg, len(args))
	for i, a := range args {
		if a.exact && strings.Contains(a.val, s) {
			a = a.dynamic()
		}
		out[i] = a
	}
	return out
}

// watch runs its arguments repeatedly, joined into a string for sh -c
// unless -x is given.
func (c *checker) watch(args []arg) {
	opts, rest, err := parseOpts(args[1:], runnerSpecs["watch"])
	if err != nil {
		c.cannotCheck("watch", err)
		return
	}
	if len(rest) == 0 || hasOpt(opts, "x", "exec") {
		c.runs("watch", args, rest, true)
		return
	}
	c.allowCheck("watch", args)
	vals := make([]string, len(rest))
	for i, a := range rest {
		if !a.exact {
			c.cannotCheck("watch", fmt.Errorf("argument %s is not a static word", a.text))
			return
		}
		vals[i] = a.val
	}
	c.script("watch", strings.Join(vals, " "), shLangs)
}

// find must be allowed itself; the commands of its -exec, -execdir, -ok and
// -okdir actions are checked like wrapped commands, with {} unknown, and
// actions that write files need approval.
func (c *checker) find(args []arg) {
	c.allowCheck("find", args)
	for _, a := range args[1:] {
		if !a.exact {
			// An expansion may become an action (-delete), several words
			// (-exec rm {} ;) or the ; that ends an -exec early.
			c.ask(fmt.Sprintf("find with the argument %s, which is not a static word", a.text))
			break
		}
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			continue
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := findActionEnd(args, i+1)
			if end < 0 {
				c.ask(fmt.Sprintf("find %s without ; or +", a.val))
				return
			}
			inner := replaced(args[i+1:end], "{}")
			if len(inner) == 0 {
				c.ask(fmt.Sprintf("find %s without a command", a.val))
			}
			c.call(inner)
			i = end
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			c.askPlain(fmt.Sprintf("find %s changes files", a.val))
		}
	}
}

// findActionEnd returns the index of the ";" or "{} +" that ends the
// command of an -exec action starting at args[from], or -1.
func findActionEnd(args []arg, from int) int {
	for j := from; j < len(args); j++ {
		if !args[j].exact {
			continue
		}
		if args[j].val == ";" {
			return j
		}
		if args[j].val == "+" && j > from && args[j-1].exact && args[j-1].val == "{}" {
			return j
		}
	}
	return -1
}
