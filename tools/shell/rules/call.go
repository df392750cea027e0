package rules

import (
	"fmt"
	"path"
	"strings"
)

// call checks one simple command, given as its words: it is recorded, matched
// against the deny rules, and then either handled by the command's own
// semantics (wrappers, shells, builtins that run code) or matched against the
// allow rules.
func (c *checker) call(args []arg) {
	if len(args) == 0 {
		return
	}
	c.recordCommand(args)
	name := args[0]
	if !name.exact {
		c.ask(fmt.Sprintf("the command name %s is not a static word", name.text))
		return
	}
	base := name.val
	if strings.Contains(base, "/") {
		// Deny rules still apply to /bin/rm and ./rm; allow rules never
		// match a path. A program run by its path is no more hidden than
		// make or python: rules cannot see inside any program.
		c.askPlain(fmt.Sprintf("runs %s by its path; allow rules match bare command names", name.text))
		base = path.Base(base)
	}
	if base == "" {
		c.ask("the command name is empty")
		return
	}
	c.denyCheck(base, args)
	c.inspect(base, args)
	if !c.special(base, args) {
		c.allowCheck(base, args)
	}
}

// special handles commands with their own semantics and reports whether it
// did. Each handler does its own allow matching.
func (c *checker) special(base string, args []arg) bool {
	switch base {
	case "env":
		c.env(args)
	case "command":
		c.commandBuiltin(args)
	case "builtin":
		c.builtinBuiltin(args)
	case "exec":
		c.exec(args)
	case "nohup", "time", "timeout", "stdbuf", "ionice", "setsid":
		c.simpleWrapper(base, args)
	case "nice":
		c.nice(args)
	case "busybox":
		c.busybox(args)
	case "xargs":
		c.xargs(args)
	case "sudo", "doas":
		c.sudo(base, args)
	case "watch":
		c.watch(args)
	case "find":
		c.find(args)
	case "bash", "sh", "dash", "ash", "zsh", "ksh", "mksh":
		c.shell(base, args)
	case "eval", "trap":
		c.evalOrTrap(base, args)
	case "source", ".", "alias", "enable", "fc", "let", "compgen", "complete", "shopt", "set", "hash":
		c.shellState(base, args)
	case "read", "mapfile", "readarray", "printf", "unset", "getopts", "wait":
		c.varNames(base, args)
	case "test", "[":
		c.test(base, args)
	case "declare", "typeset", "local", "export", "readonly", "nameref":
		c.allowCheck(base, args)
		c.declWords(base, args[1:])
	default:
		return false
	}
	return true
}

// match is how a rule's words compare with a command's arguments.
type match int

const (
	matchNo    match = iota
	matchMaybe       // an argument whose value is unknown could match
	matchYes
)

// matchWords compares a rule's further words with a command's arguments,
// word by word. A word whose value is unknown may expand to any number of
// fields, so from it on anything could match.
func matchWords(words []string, args []arg) match {
	for i, w := range words {
		if i >= len(args) {
			return matchNo
		}
		if !args[i].exact {
			return matchMaybe
		}
		if args[i].val != w {
			return matchNo
		}
	}
	return matchYes
}

// denyCheck matches a simple command against the deny rules. A command that
// may match a deny rule needs approval: one whose words known only at run
// time could match, and one that holds the rule's words in order after
// other words, such as options (`git -C dir push` for "git push").
func (c *checker) denyCheck(base string, args []arg) {
	for _, r := range c.set.denyRules() {
		if r.name != base {
			continue
		}
		switch matchWords(r.words, args[1:]) {
		case matchYes:
			c.deny(r, args)
		case matchMaybe:
			c.ask(fmt.Sprintf("%s may match deny rule %q", joinArgs(args), r.text))
		default:
			if inOrder(r.words, args[1:]) {
				c.ask(fmt.Sprintf("%s may match deny rule %q", joinArgs(args), r.text))
			}
		}
	}
}

// inOrder reports whether words appear, in order, among the exact args.
func inOrder(words []string, args []arg) bool {
	if len(words) == 0 {
		return false
	}
	i := 0
	for _, a := range args {
		if a.exact && a.val == words[i] {
			if i++; i == len(words) {
				return true
			}
		}
	}
	return false
}

// allowCheck matches a simple command against the allow rules.
func (c *checker) allowCheck(base string, args []arg) {
	for _, r := range c.set.allowRules() {
		if r.name == base && matchWords(r.words, args[1:]) == matchYes {
			c.allowedByRule(r)
			return
		}
	}
	c.noRule(args)
	c.namesDenied(base, args)
}

// runners are programs that run a command given in their arguments, which
// the checker does not parse as wrappers (their options are many).
var runners = map[string]bool{
	"flock": true, "strace": true, "ltrace": true, "script": true, "chroot": true, "unshare": true,
	"nsenter": true, "taskset": true, "chrt": true, "prlimit": true, "setpriv": true, "runuser": true,
	"su": true, "systemd-run": true, "parallel": true, "valgrind": true, "gdb": true, "firejail": true,
	"bwrap": true, "proot": true, "fakeroot": true, "catchsegv": true, "expect": true, "tmux": true,
	"screen": true, "xvfb-run": true, "entr": true, "at": true, "batch": true, "ssh": true,
	"perf": true, "numactl": true, "faketime": true, "torsocks": true, "proxychains": true, "sg": true,
	"newgrp": true, "dbus-run-session": true, "uv": true, "npx": true, "pnpx": true, "bunx": true,
}

// namesDenied notes, for a runner no rule allows (`flock f rm x`,
// `strace rm x`), when deny rules exist, an argument that names a denied
// command or a shell, or that is known only at run time: the runner may
// well run it, so the line needs a person even in a mode that runs
// commands unasked. Other programs are not looked into (`git rm` and
// `grep rm` are not runs of rm).
func (c *checker) namesDenied(base string, args []arg) {
	if !runners[base] || !c.set.Denies() {
		return
	}
	for _, a := range args[1:] {
		if !a.exact {
			c.ask(fmt.Sprintf("%s runs other programs and %s is known only at run time", base, a.text))
			return
		}
		name, _, _ := strings.Cut(strings.TrimSpace(a.val), " ")
		switch path.Base(name) {
		case "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "busybox", "env", "eval", "exec", "xargs":
			c.ask(fmt.Sprintf("%s runs %s, whose commands are not checked", base, a.text))
			return
		}
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		for _, r := range c.set.denyRules() {
			if r.name == name {
				c.ask(fmt.Sprintf("%s may run %s, which deny rule %q names", base, a.text, r.text))
				return
			}
		}
	}
}

// runs checks the command a wrapper runs. A transparent wrapper (env, nohup,
// timeout...) needs no rule of its own; a gated one (sudo, watch, find)
// must be allowed itself as well. With no command to run, the wrapper is an
// ordinary command.
func (c *checker) runs(base string, args, inner []arg, gated bool) {
	if gated || len(inner) == 0 {
		c.allowCheck(base, args)
	}
	c.call(inner)
}

// cannotCheck asks because a wrapper's arguments cannot be classified.
func (c *checker) cannotCheck(base string, err error) {
	c.ask(fmt.Sprintf("cannot check the command %s runs: %v", base, err))
}
