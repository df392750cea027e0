package rules

import (
	"fmt"
	"strings"
)

// optKind is how an option takes its argument.
type optKind int

const (
	noArg       optKind = iota // -v, --verbose
	requiredArg                // -s SIG, -sSIG, --signal SIG, --signal=SIG
	optionalArg                // -i[R], --replace[=R]: attached only
)

// optSpec describes the options of a program that, like GNU getopt with a
// leading "+", stops at the first operand.
type optSpec struct {
	short map[byte]optKind
	long  map[string]optKind
}

// opt is one parsed option: its letter or long name and its argument.
type opt struct {
	name   string
	val    string
	hasVal bool
}

// shortOpts builds a short option table: letters in flags take no argument,
// letters in withArg take one, letters in optional take an attached one.
func shortOpts(flags, withArg, optional string) map[byte]optKind {
	m := make(map[byte]optKind)
	for i := range len(flags) {
		m[flags[i]] = noArg
	}
	for i := range len(withArg) {
		m[withArg[i]] = requiredArg
	}
	for i := range len(optional) {
		m[optional[i]] = optionalArg
	}
	return m
}

// parseOpts parses the options at the start of args and returns them and
// the remaining operands. Every word up to the first operand must be exact:
// a word whose value is unknown might be any option, or several. Unknown
// options are an error, so that nothing unclassified is allowed.
func parseOpts(args []arg, spec optSpec) (opts []opt, rest []arg, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return nil, nil, fmt.Errorf("argument %s is not a static word", a.text)
		}
		v := a.val
		switch {
		case v == "--":
			return opts, args[i+1:], nil
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			kind, ok := spec.long[name]
			if !ok {
				return nil, nil, fmt.Errorf("unknown option %s", a.text)
			}
			switch {
			case kind == noArg && hasVal:
				return nil, nil, fmt.Errorf("option --%s takes no argument", name)
			case kind == requiredArg && !hasVal:
				if i+1 >= len(args) || !args[i+1].exact {
					return nil, nil, fmt.Errorf("option --%s needs a static argument", name)
				}
				i++
				val, hasVal = args[i].val, true
			}
			opts = append(opts, opt{name: name, val: val, hasVal: hasVal})
		case len(v) > 1 && v[0] == '-':
			n, o, err := parseShortCluster(args, i, spec)
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, o...)
			i = n
		default:
			return opts, args[i:], nil
		}
	}
	return opts, nil, nil
}

// parseShortCluster parses the cluster of short options at args[i] ("-rn1")
// and returns the index of the last word it used.
func parseShortCluster(args []arg, i int, spec optSpec) (int, []opt, error) {
	v := args[i].val
	var opts []opt
	for j := 1; j < len(v); j++ {
		letter := v[j]
		kind, ok := spec.short[letter]
		if !ok {
			return 0, nil, fmt.Errorf("unknown option -%c in %s", letter, args[i].text)
		}
		o := opt{name: string(letter)}
		if kind != noArg {
			if j+1 < len(v) {
				o.val, o.hasVal = v[j+1:], true
			} else if kind == requiredArg {
				if i+1 >= len(args) || !args[i+1].exact {
					return 0, nil, fmt.Errorf("option -%c needs a static argument", letter)
				}
				i++
				o.val, o.hasVal = args[i].val, true
			}
			opts = append(opts, o)
			return i, opts, nil
		}
		opts = append(opts, o)
	}
	return i, opts, nil
}

// hasOpt reports whether opts include any of the names.
func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}
