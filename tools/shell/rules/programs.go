package rules

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Programs that look like viewers or filters but can run commands or write
// files through their options or scripts. A command line that uses such an
// option needs approval even when a rule allows the program: one that runs
// commands is unresolved (it may hide a denied command, so it is asked
// about in every mode when deny rules exist), one that writes files is
// asked about like an output redirection. A word of theirs known only at
// run time might be any option, so it counts as the worst the program can
// do. The README lists these programs.

// effect is what an option or script command does.
type effect int

const (
	runsCommands effect = iota + 1
	writesFiles
)

// optTable describes a program's options for inspect: which short letters
// and long names take an argument (so their value is not read as an option
// or operand), and which have an effect. Long names match by prefix, as
// GNU getopt_long accepts any unambiguous abbreviation (--to-com for
// --to-command). GNU programs take options after operands too, so every
// word before "--" is looked at.
type optTable struct {
	shortArg    string
	longArg     []string
	short       map[byte]effect
	long        map[string]effect
	dynamicRuns bool // a word known only at run time may run commands
	// dynamicSafe: a word known only at run time can do no harm (the
	// program has no option that runs or writes).
	dynamicSafe bool
}

// programOpt is one option as inspect saw it.
type programOpt struct {
	name   string // letter or full long name as written (before =)
	val    string
	hasVal bool
}

// scan reads args (without the program name) with t: the options, the
// operands, and the effects found, each with its reason.
func (t optTable) scan(prog string, args []arg) (opts []programOpt, operands []arg, found map[string]effect) {
	found = map[string]effect{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			operands = append(operands, a)
			t.dynamic(prog, a, found)
			continue
		}
		v := a.val
		switch {
		case v == "--":
			operands = append(operands, args[i+1:]...)
			return opts, operands, found
		case strings.HasPrefix(v, "--"):
			var o programOpt
			o, i = t.longOpt(prog, args, i, found)
			opts = append(opts, o)
		case len(v) > 1 && v[0] == '-':
			opts, i = t.shortOpts(prog, args, i, opts, found)
		default:
			operands = append(operands, a)
		}
	}
	return opts, operands, found
}

// note keeps in found effect e for the reason why, unless a worse one is
// kept for it.
func note(found map[string]effect, e effect, why string) {
	if e > found[why] {
		found[why] = e
	}
}

// dynamic notes the worst that word a, known only at run time, may do as an
// option of prog: nothing, writing files or running commands.
func (t optTable) dynamic(prog string, a arg, found map[string]effect) {
	if t.dynamicSafe {
		return
	}
	e := writesFiles
	if t.dynamicRuns {
		e = runsCommands
	}
	note(found, e, fmt.Sprintf("%s with the argument %s, which is not a static word, may run commands or write files", prog, a.text))
}

// longOpt reads the long option args[i] ("--name" or "--name=value"; the
// value of one that takes it may be the next word) and notes the effects
// of the long options its name abbreviates. It returns the option and the
// index of its last word.
func (t optTable) longOpt(prog string, args []arg, i int, found map[string]effect) (programOpt, int) {
	name, val, hasVal := strings.Cut(args[i].val[2:], "=")
	for long, e := range t.long {
		if name != "" && strings.HasPrefix(long, name) {
			note(found, e, fmt.Sprintf("%s --%s %s", prog, long, e))
		}
	}
	if !hasVal && prefixOfAny(name, t.longArg) && i+1 < len(args) {
		i++
		val, hasVal = args[i].val, true
	}
	return programOpt{name: name, val: val, hasVal: hasVal}, i
}

// shortOpts reads the letters of args[i] ("-abc"; a letter that takes an
// argument takes the rest of the word, or the next word) and notes their
// effects. It returns opts with the letters' options appended and the
// index of the last word read.
func (t optTable) shortOpts(prog string, args []arg, i int, opts []programOpt, found map[string]effect) ([]programOpt, int) {
	v := args[i].val
	for j := 1; j < len(v); j++ {
		letter := v[j]
		if e := t.short[letter]; e != 0 {
			note(found, e, fmt.Sprintf("%s -%c %s", prog, letter, e))
		}
		if strings.IndexByte(t.shortArg, letter) >= 0 {
			o := programOpt{name: string(letter), val: v[j+1:], hasVal: j+1 < len(v)}
			if !o.hasVal && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i].val, true
			}
			return append(opts, o), i
		}
		opts = append(opts, programOpt{name: string(letter)})
	}
	return opts, i
}

func (e effect) String() string {
	if e == runsCommands {
		return "runs commands"
	}
	return "writes files"
}

func prefixOfAny(name string, longs []string) bool {
	for _, l := range longs {
		if name != "" && strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

// optVals returns the values of the options named (letters or long names,
// which match by prefix when at least two letters long).
func optVals(opts []programOpt, names ...string) []string {
	var out []string
	for _, o := range opts {
		for _, n := range names {
			if o.hasVal && (o.name == n || len(n) > 1 && len(o.name) > 1 && strings.HasPrefix(n, o.name)) {
				out = append(out, o.val)
			}
		}
	}
	return out
}

// hasProgramOpt reports whether opts hold any of names, as optVals matches.
func hasProgramOpt(opts []programOpt, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n || len(n) > 1 && len(o.name) > 1 && strings.HasPrefix(n, o.name) {
				return true
			}
		}
	}
	return false
}

// programs are the inspected programs, by name; each returns the effects
// its arguments (without the name) have, with reasons.
var programs = map[string]func(args []arg) map[string]effect{
	"sed": sedEffects, "gsed": sedEffects,
	"awk": awkEffects, "gawk": awkEffects, "mawk": awkEffects, "nawk": awkEffects, "busybox-awk": awkEffects,
	"tar": tarEffects, "gtar": tarEffects, "bsdtar": tarEffects,
	"sort": tableEffects("sort", optTable{shortArg: "kSotT", longArg: []string{"key", "buffer-size", "output",
		"field-separator", "temporary-directory", "compress-program", "batch-size", "files0-from", "parallel", "random-source", "sort"},
		short: map[byte]effect{'o': writesFiles}, long: map[string]effect{"compress-program": runsCommands, "output": writesFiles}}),
	"git": gitEffects,
	"rg":  tableEffects("rg", optTable{shortArg: "efgmAtBCjMrET", long: map[string]effect{"pre": runsCommands}, longArg: []string{"pre", "pre-glob", "regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "replace"}}),
	"fd":  fdEffects, "fdfind": fdEffects,
	"man": tableEffects("man", optTable{shortArg: "CMPHrELmSepR", short: map[byte]effect{'P': runsCommands, 'H': runsCommands},
		long: map[string]effect{"pager": runsCommands, "html": runsCommands, "preprocessor": runsCommands}, longArg: []string{"pager", "config-file", "manpath", "sections", "extension", "locale", "systems", "encoding", "recode"}}),
	"zip":   tableEffects("zip", optTable{shortArg: "bnOtxiPZ", short: map[byte]effect{'T': writesFiles}, long: map[string]effect{"unzip-command": runsCommands}, longArg: []string{"unzip-command"}}),
	"rsync": tableEffects("rsync", optTable{shortArg: "eBfT", short: map[byte]effect{'e': runsCommands}, long: map[string]effect{"rsh": runsCommands, "rsync-path": runsCommands}, longArg: []string{"rsh", "rsync-path"}, dynamicRuns: true}),
	"tee":   writersOfOperands("tee", 0), "cp": writer("cp"), "mv": writer("mv"), "install": writer("install"), "ln": writer("ln"),
	"truncate": writer("truncate"), "shred": writer("shred"), "patch": writer("patch"),
	"uniq": writersOfOperands("uniq", 1), "xxd": writersOfOperands("xxd", 1), "dd": ddEffects,
	"split": writersOfOperands("split", 0), "csplit": writer("csplit"),
	"curl": tableEffects("curl", optTable{shortArg: "oKdHuXAeEr", short: map[byte]effect{'o': writesFiles, 'O': writesFiles, 'K': runsCommands},
		long:    map[string]effect{"output": writesFiles, "remote-name": writesFiles, "remote-name-all": writesFiles, "config": runsCommands, "output-dir": writesFiles},
		longArg: []string{"output", "config", "data", "header", "user", "request", "user-agent", "output-dir"}}),
	"wget": tableEffects("wget", optTable{shortArg: "OoaeiP", short: map[byte]effect{'O': writesFiles, 'o': writesFiles, 'a': writesFiles, 'e': runsCommands, 'P': writesFiles},
		long:    map[string]effect{"output-document": writesFiles, "output-file": writesFiles, "execute": runsCommands, "directory-prefix": writesFiles, "use-askpass": runsCommands},
		longArg: []string{"output-document", "output-file", "execute", "directory-prefix", "input-file", "use-askpass"}}),
	// Editors and tools with a command language of their own that runs
	// shell commands (ed's and ex's !, vim -c, emacs --eval, socat's EXEC
	// and SYSTEM addresses, nc -e): what they run cannot be checked.
	"ed": runsOwn("ed"), "ex": runsOwn("ex"), "vi": runsOwn("vi"), "vim": runsOwn("vim"), "nvim": runsOwn("nvim"),
	"view": runsOwn("view"), "emacs": runsOwn("emacs"), "socat": socatEffects,
	"go": goEffects,
	"ag": tableEffects("ag", optTable{shortArg: "ABCGgmW", long: map[string]effect{"pager": runsCommands},
		longArg: []string{"after", "before", "context", "file-search-regex", "max-count", "pager", "path-to-ignore", "ignore", "ignore-dir", "depth", "width"}, dynamicRuns: true}),
	"tree":   tableEffects("tree", optTable{shortArg: "LPIoH", short: map[byte]effect{'o': writesFiles}, longArg: []string{"filelimit", "timefmt", "sort", "charset", "fromfile"}}),
	"nc":     tableEffects("nc", optTable{shortArg: "ecpswWiqIOTVX", short: map[byte]effect{'e': runsCommands, 'c': runsCommands}, long: map[string]effect{"exec": runsCommands, "sh-exec": runsCommands, "lua-exec": runsCommands}}),
	"ncat":   tableEffects("ncat", optTable{shortArg: "ecpswWiqIOTVX", short: map[byte]effect{'e': runsCommands, 'c': runsCommands}, long: map[string]effect{"exec": runsCommands, "sh-exec": runsCommands, "lua-exec": runsCommands}}),
	"netcat": tableEffects("netcat", optTable{shortArg: "ecpswWiqIOTVX", short: map[byte]effect{'e': runsCommands, 'c': runsCommands}, long: map[string]effect{"exec": runsCommands, "sh-exec": runsCommands}}),
}

// runsOwn is a program whose own command language runs shell commands.
func runsOwn(prog string) func([]arg) map[string]effect {
	return func([]arg) map[string]effect {
		return map[string]effect{prog + " runs commands of its own language (!cmd), which are not checked": runsCommands}
	}
}

// socatEffects: socat's EXEC: and SYSTEM: addresses run commands.
func socatEffects(args []arg) map[string]effect {
	found := map[string]effect{}
	for _, a := range args {
		up := strings.ToUpper(a.val)
		switch {
		case !a.exact:
			found[fmt.Sprintf("socat with the argument %s, which is not a static word, may run commands", a.text)] = runsCommands
		case strings.Contains(up, "EXEC:") || strings.Contains(up, "SYSTEM:"):
			found["socat "+a.text+" runs commands"] = runsCommands
		}
	}
	return found
}

// tableEffects inspects a program with its table alone.
func tableEffects(prog string, t optTable) func([]arg) map[string]effect {
	return func(args []arg) map[string]effect {
		_, _, found := t.scan(prog, args)
		return found
	}
}

// writer is a program whose purpose is writing files (cp, mv): a rule
// allowing it is honoured for the rule's sake, but the write is asked about
// as an output redirection is.
func writer(prog string) func([]arg) map[string]effect {
	return func(args []arg) map[string]effect {
		return map[string]effect{prog + " writes files": writesFiles}
	}
}

// writersOfOperands is a program that writes its operands from the skip+1th
// on (tee FILE..., uniq IN OUT, xxd IN OUT), unless they are harmless.
func writersOfOperands(prog string, skip int) func([]arg) map[string]effect {
	t := optTable{shortArg: "fglcsw", longArg: []string{"output-error", "skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}}
	return func(args []arg) map[string]effect {
		_, operands, found := t.scan(prog, args)
		for i, o := range operands {
			if i >= skip && !(o.exact && (harmlessTargets[o.val] || o.val == "-")) {
				found[fmt.Sprintf("%s writes to %s", prog, o.text)] = writesFiles
			}
		}
		return found
	}
}

// ddEffects: dd writes the file of its of= operand.
func ddEffects(args []arg) map[string]effect {
	found := map[string]effect{}
	for _, a := range args {
		switch {
		case !a.exact:
			found[fmt.Sprintf("dd with the argument %s, which is not a static word, may write files", a.text)] = writesFiles
		case strings.HasPrefix(a.val, "of=") && !harmlessTargets[strings.TrimPrefix(a.val, "of=")]:
			found["dd "+a.text+" writes files"] = writesFiles
		}
	}
	return found
}

// fdEffects: fd's -x/--exec and -X/--exec-batch run a command for each
// result; its command is checked as find -exec's is not, so it needs
// approval.
func fdEffects(args []arg) map[string]effect {
	t := optTable{shortArg: "dEetScoj", short: map[byte]effect{'x': runsCommands, 'X': runsCommands},
		long:    map[string]effect{"exec": runsCommands, "exec-batch": runsCommands},
		longArg: []string{"max-depth", "min-depth", "exact-depth", "exclude", "extension", "type", "size", "changed-within", "changed-before", "owner", "color", "threads", "base-directory", "path-separator", "search-path", "max-results", "ignore-file", "format"}}
	_, _, found := t.scan("fd", args)
	return found
}

// goEffects: go's build flags that run a program instead of the
// toolchain's (-toolexec, -exec, -vettool) or rewrite go.mod (-mod=mod,
// -modfile), in any subcommand; and, for the subcommands that only read
// (list, doc, version), a word known only at run time, which may be such
// a flag. Go takes a flag with one dash or two, its value after = or as
// the next word.
func goEffects(args []arg) map[string]effect {
	found := map[string]effect{}
	sub := ""
	for i, a := range args {
		if !a.exact {
			if sub == "" || sub == "list" || sub == "doc" || sub == "version" {
				found[fmt.Sprintf("go with the argument %s, which is not a static word, may run commands (-toolexec)", a.text)] = runsCommands
			}
			continue
		}
		if !strings.HasPrefix(a.val, "-") {
			if sub == "" {
				sub = a.val
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a.val, "-"), "=")
		switch name {
		case "toolexec", "exec", "vettool":
			found["go -"+name+" runs commands"] = runsCommands
		case "modfile":
			found["go -modfile writes files"] = writesFiles
		case "mod":
			if !hasVal && i+1 < len(args) {
				val = args[i+1].val
			}
			if val == "mod" {
				found["go -mod=mod writes go.mod"] = writesFiles
			}
		}
	}
	return found
}

// gitEffects: git's own options that run programs (-c and --config-env
// can name one: core.pager, core.sshCommand, diff.external, alias.x=!cmd;
// --exec-path picks the programs git runs), and options of its subcommands
// that run a program or write a file the subcommand's name does not say.
func gitEffects(args []arg) map[string]effect {
	global := optTable{shortArg: "cC", longArg: []string{"config-env", "git-dir", "work-tree", "namespace", "super-prefix", "list-cmds", "attr-source"},
		short: map[byte]effect{'c': runsCommands}, long: map[string]effect{"config-env": runsCommands, "exec-path": runsCommands},
		dynamicRuns: true}
	n := gitSubcommand(args, global)
	_, _, found := global.scan("git", args[:n])
	if n == len(args) {
		return found
	}
	sub, rest := args[n].val, args[n+1:]
	opts, operands, subFound := gitSubTable(sub).scan("git "+sub, rest)
	for why, e := range subFound {
		found[why] = e
	}
	gitSubEffects(sub, opts, operands, found)
	return found
}

// gitSubcommand is the index in args of git's subcommand, where the global
// options (read with table global) end; len(args) when there is none.
func gitSubcommand(args []arg, global optTable) int {
	n := 0
	for n < len(args) && (!args[n].exact || strings.HasPrefix(args[n].val, "-")) {
		if args[n].exact && (args[n].val == "-c" || args[n].val == "-C" || prefixOfAny(strings.TrimPrefix(args[n].val, "--"), global.longArg) && !strings.Contains(args[n].val, "=")) {
			n++
		}
		n++
	}
	return min(n, len(args))
}

// gitSubTable is the option table of git subcommand sub: the options of
// any subcommand that run a program or write a file, with what a word
// known only at run time may do for sub.
func gitSubTable(sub string) optTable {
	t := optTable{shortArg: "oxuOmFCcS", longArg: []string{"output", "output-directory", "exec", "extcmd", "upload-pack", "receive-pack", "open-files-in-pager", "message", "file"},
		long: map[string]effect{"exec": runsCommands, "extcmd": runsCommands, "upload-pack": runsCommands, "receive-pack": runsCommands,
			"open-files-in-pager": runsCommands, "ext-diff": runsCommands, "textconv": runsCommands, "tool": runsCommands,
			"output": writesFiles, "output-directory": writesFiles}}
	switch sub {
	case "grep", "rebase", "difftool", "mergetool", "clone", "fetch", "pull", "ls-remote", "push", "archive", "bisect", "submodule", "filter-branch", "filter-repo":
		t.dynamicRuns = true
	case "diff", "log", "show", "format-patch", "whatchanged", "range-diff", "diff-tree", "diff-files", "diff-index":
	default:
		t.dynamicSafe = true
	}
	return t
}

// gitSubEffects notes in found what git subcommand sub does with its
// options opts and operands that the table alone cannot tell: short
// letters whose meaning depends on the subcommand, and the subcommands
// that run commands (bisect run, submodule foreach, filter-branch).
func gitSubEffects(sub string, opts []programOpt, operands []arg, found map[string]effect) {
	switch sub {
	case "rebase", "difftool", "mergetool":
		if hasProgramOpt(opts, "x") {
			found["git "+sub+" -x runs commands"] = runsCommands
		}
	case "grep":
		if hasProgramOpt(opts, "O") {
			found["git grep -O runs commands"] = runsCommands
		}
	case "format-patch", "archive":
		if hasProgramOpt(opts, "o") {
			found["git "+sub+" -o writes files"] = writesFiles
		}
	}
	switch sub {
	case "clone", "fetch", "pull", "ls-remote", "push", "archive":
		if hasProgramOpt(opts, "u") {
			found["git "+sub+" -u runs commands"] = runsCommands
		}
	case "bisect":
		if len(operands) > 0 && operands[0].exact && operands[0].val == "run" {
			found["git bisect run runs commands"] = runsCommands
		}
	case "submodule":
		for _, o := range operands {
			if o.exact && o.val == "foreach" {
				found["git submodule foreach runs commands"] = runsCommands
			}
		}
	case "filter-branch", "filter-repo":
		found["git "+sub+" runs commands"] = runsCommands
	}
}

// tarEffects: tar's options that run programs (--to-command,
// --checkpoint-action=exec, -I/--use-compress-program, -F/--info-script,
// --rsh-command) run commands; unless it only lists (-t) or compares (-d),
// tar writes files (extracting, creating or updating an archive). The first
// word may be old-style letters without a dash (tar xzf a.tgz).
func tarEffects(args []arg) map[string]effect {
	t := optTable{shortArg: "bCfFgHIKLNTVX",
		longArg: []string{"file", "directory", "use-compress-program", "info-script", "new-volume-script", "rsh-command",
			"rmt-command", "to-command", "checkpoint-action", "exclude", "files-from", "label", "format", "owner", "group", "mode", "mtime", "transform", "xform"},
		short: map[byte]effect{'I': runsCommands, 'F': runsCommands},
		long: map[string]effect{"to-command": runsCommands, "use-compress-program": runsCommands, "info-script": runsCommands,
			"new-volume-script": runsCommands, "rsh-command": runsCommands, "rmt-command": runsCommands,
			"checkpoint-action": runsCommands, "index-file": writesFiles, "remove-files": writesFiles},
		dynamicRuns: true}
	if len(args) > 0 && args[0].exact && args[0].val != "" && args[0].val[0] != '-' {
		// Old style: the letters of the first word are options.
		args = append([]arg{literalArg("-" + args[0].val)}, args[1:]...)
	}
	opts, _, found := t.scan("tar", args)
	if !hasProgramOpt(opts, "t", "list", "d", "diff", "compare") || hasProgramOpt(opts, "x", "extract", "get", "c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate", "delete") {
		found["tar writes files unless it only lists (-t)"] = writesFiles
	}
	return found
}

// awkEffects: an awk program can run commands (system(), print | "cmd",
// "cmd" | getline) and write files (print > "file"); a program from a file
// (-f) or an extension (-l, -i, -E) cannot be checked.
func awkEffects(args []arg) map[string]effect {
	t := optTable{shortArg: "FvfiElW", short: map[byte]effect{'f': runsCommands, 'i': runsCommands, 'l': runsCommands, 'E': runsCommands},
		long:    map[string]effect{"file": runsCommands, "include": runsCommands, "load": runsCommands, "exec": runsCommands},
		longArg: []string{"field-separator", "assign", "file", "include", "load", "exec", "source", "dump-variables", "profile", "debug"}, dynamicRuns: true}
	opts, operands, found := t.scan("awk", args)
	programs := optVals(opts, "source")
	if !hasProgramOpt(opts, "f", "file", "E", "exec") && len(operands) > 0 && operands[0].exact {
		programs = append(programs, operands[0].val)
	}
	for _, p := range programs {
		switch {
		case awkRuns.MatchString(p):
			found["awk program runs commands (system(), print | cmd, cmd | getline, @load)"] = runsCommands
		case awkWrites.MatchString(p):
			found["awk program writes files (print > file)"] = writesFiles
		}
	}
	return found
}

// awkRuns finds what in an awk program runs a command: system(), a print
// or printf piped to a command, a command piped to getline, a gawk
// coprocess (|&), an @load or @include; awkWrites a print or printf
// redirected to a file. A > or | elsewhere (a comparison, a regular
// expression's alternation) is not taken for either.
var (
	awkRuns   = regexp.MustCompile(`\bsystem\s*\(|\bprintf?\b[^;}\n]*\||\|\s*getline\b|\|&|@\s*(load|include)\b`)
	awkWrites = regexp.MustCompile(`\bprintf?\b[^;}\n]*>`)
)

// inspect notes the effects of a program in the table: commands it may run
// hide commands from the rules; files it writes are asked about as output
// redirections are.
func (c *checker) inspect(base string, args []arg) {
	f := programs[base]
	if f == nil {
		return
	}
	found := f(args[1:])
	whys := slices.Sorted(maps.Keys(found))
	for _, why := range whys {
		if found[why] == runsCommands {
			c.ask(why)
		} else {
			c.askPlain(why)
		}
	}
}
