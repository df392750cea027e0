package rules

import (
	"errors"
	"fmt"
	"strings"
)

// Option tables of the transparent wrappers: programs that only change how
// the command they are given runs (its environment, priority, time limit,
// buffering, session) and so need no rule of their own.
var wrapperSpecs = map[string]optSpec{
	"nohup": {long: map[string]optKind{"help": noArg, "version": noArg}},
	"time": {
		short: shortOpts("pvqa", "fo", ""),
		long: map[string]optKind{"portability": noArg, "verbose": noArg, "quiet": noArg, "append": noArg,
			"format": requiredArg, "output": requiredArg, "help": noArg, "version": noArg},
	},
	"timeout": {
		short: shortOpts("fpv", "ks", ""),
		long: map[string]optKind{"foreground": noArg, "kill-after": requiredArg, "preserve-status": noArg,
			"signal": requiredArg, "verbose": noArg, "help": noArg, "version": noArg},
	},
	"stdbuf": {
		short: shortOpts("", "ioe", ""),
		long: map[string]optKind{"input": requiredArg, "output": requiredArg, "error": requiredArg,
			"help": noArg, "version": noArg},
	},
	// -p, -P and -u act on running processes and are left out on purpose.
	"ionice": {
		short: shortOpts("t", "cn", ""),
		long:  map[string]optKind{"class": requiredArg, "classdata": requiredArg, "ignore": noArg, "help": noArg, "version": noArg},
	},
	"setsid": {
		short: shortOpts("cfw", "", ""),
		long:  map[string]optKind{"ctty": noArg, "fork": noArg, "wait": noArg, "help": noArg, "version": noArg},
	},
	"env": {
		short: shortOpts("iv0", "uCS", ""),
		long: map[string]optKind{"ignore-environment": noArg, "null": noArg, "unset": requiredArg,
			"chdir": requiredArg, "split-string": requiredArg, "debug": noArg, "block-signal": optionalArg,
			"default-signal": optionalArg, "ignore-signal": optionalArg, "list-signal-handling": noArg,
			"help": noArg, "version": noArg},
	},
	"command": {short: shortOpts("pvV", "", "")},
	"exec":    {short: shortOpts("cl", "a", "")},
}

// simpleWrapper handles wrappers whose command follows their options (and,
// for timeout, a duration).
func (c *checker) simpleWrapper(base string, args []arg) {
	opts, inner, err := parseOpts(args[1:], wrapperSpecs[base])
	if err != nil {
		c.cannotCheck(base, err)
		return
	}
	if base == "time" && hasOpt(opts, "o", "output") {
		c.askPlain("time -o writes to a file")
	}
	if base == "timeout" && len(inner) > 0 {
		if !inner[0].exact {
			c.cannotCheck(base, fmt.Errorf("duration %s is not a static word", inner[0].text))
			return
		}
		inner = inner[1:]
	}
	c.runs(base, args, inner, false)
}

// env runs a command with options and NAME=VALUE assignments before it.
func (c *checker) env(args []arg) {
	rest := args[1:]
	for {
		opts, r, err := parseOpts(rest, wrapperSpecs["env"])
		if err != nil {
			c.cannotCheck("env", err)
			return
		}
		if hasOpt(opts, "S", "split-string") {
			c.ask("env -S splits a string into a command that is not checked")
			return
		}
		rest = r
		if len(rest) == 0 || !rest[0].exact || rest[0].val != "-" {
			break
		}
		rest = rest[1:] // "-" is -i
	}
	inner, ok := c.envAssignments("env", rest)
	if ok {
		c.runs("env", args, inner, false)
	}
}

// envAssignments skips the NAME=VALUE words before a command (env, sudo),
// asking for variables that change what commands run.
func (c *checker) envAssignments(base string, args []arg) ([]arg, bool) {
	for len(args) > 0 {
		a := args[0]
		if !a.exact {
			c.cannotCheck(base, fmt.Errorf("%s may be an assignment or the command", a.text))
			return nil, false
		}
		name, _, ok := strings.Cut(a.val, "=")
		if !ok {
			break
		}
		c.setsVar(name)
		args = args[1:]
	}
	return args, true
}

// commandBuiltin handles `command [-p] cmd`; `command -v`/`-V` only looks a
// name up and is an ordinary command.
func (c *checker) commandBuiltin(args []arg) {
	opts, inner, err := parseOpts(args[1:], wrapperSpecs["command"])
	if err != nil {
		c.cannotCheck("command", err)
		return
	}
	if hasOpt(opts, "v", "V") {
		c.allowCheck("command", args)
		return
	}
	c.runs("command", args, inner, false)
}

// builtinBuiltin handles `builtin name args`.
func (c *checker) builtinBuiltin(args []arg) {
	inner := args[1:]
	if len(inner) > 0 && inner[0].exact && inner[0].val == "--" {
		inner = inner[1:]
	}
	c.runs("builtin", args, inner, false)
}

// exec replaces the shell with a command; without one it changes the shell's
// file descriptors for the rest of the script.
func (c *checker) exec(args []arg) {
	_, inner, err := parseOpts(args[1:], wrapperSpecs["exec"])
	if err != nil {
		c.cannotCheck("exec", err)
		return
	}
	if len(inner) == 0 {
		c.ask("exec without a command changes the shell itself")
		c.allowCheck("exec", args)
		return
	}
	c.runs("exec", args, inner, false)
}

// nice accepts -n N, -nN, --adjustment=N and the old -N form.
func (c *checker) nice(args []arg) {
	rest := args[1:]
loop:
	for len(rest) > 0 {
		a := rest[0]
		if !a.exact {
			c.cannotCheck("nice", fmt.Errorf("argument %s is not a static word", a.text))
			return
		}
		v := a.val
		switch {
		case v == "--":
			rest = rest[1:]
			break loop
		case v == "-n" || v == "--adjustment":
			if len(rest) < 2 || !rest[1].exact {
				c.cannotCheck("nice", errors.New("-n needs a static argument"))
				return
			}
			rest = rest[2:]
		case strings.HasPrefix(v, "-n") && isInt(v[2:]),
			strings.HasPrefix(v, "--adjustment="),
			strings.HasPrefix(v, "-") && isInt(v[1:]):
			rest = rest[1:]
		case strings.HasPrefix(v, "-") && len(v) > 1:
			c.cannotCheck("nice", fmt.Errorf("unknown option %s", a.text))
			return
		default:
			break loop
		}
	}
	c.runs("nice", args, rest, false)
}

// busybox runs the applet named by its first argument.
func (c *checker) busybox(args []arg) {
	if len(args) < 2 || (args[1].exact && strings.HasPrefix(args[1].val, "-")) {
		c.allowCheck("busybox", args)
		return
	}
	c.runs("busybox", args, args[1:], false)
}
