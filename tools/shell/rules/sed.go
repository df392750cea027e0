package rules

import (
	"fmt"
	"strings"
)

// sedEffects: sed's -i edits files in place; its scripts' e command and
// s///e flag run commands, w, W and s///w write files. A script from a file
// (-f) cannot be checked; GNU sed's --sandbox refuses e, r and w.
func sedEffects(args []arg) map[string]effect {
	t := optTable{shortArg: "efl", short: map[byte]effect{'i': writesFiles, 'f': runsCommands},
		long:    map[string]effect{"in-place": writesFiles, "file": runsCommands},
		longArg: []string{"expression", "file", "line-length"}, dynamicRuns: true}
	opts, operands, found := t.scan("sed", args)
	if hasProgramOpt(opts, "sandbox") {
		return found
	}
	scripts := optVals(opts, "e", "expression")
	if len(scripts) == 0 && !hasProgramOpt(opts, "f", "file") && len(operands) > 0 && operands[0].exact {
		scripts = append(scripts, operands[0].val)
	}
	for _, s := range scripts {
		for e, why := range sedScript(s) {
			found[why] = max(found[why], e)
		}
	}
	return found
}

// sedScript finds the commands of a sed script that run commands or write
// files. What it cannot read counts as running commands.
func sedScript(s string) map[effect]string {
	r := &sedReader{s: s, out: map[effect]string{}}
	for r.i < len(s) {
		if !r.addresses() {
			r.runs("cannot be read")
			return r.out
		}
		if r.i >= len(s) {
			break
		}
		if !r.command() {
			return r.out
		}
	}
	return r.out
}

// sedReader reads a sed script s from byte offset i on, noting in out what
// its commands do: for each effect, the reason (the first command that
// writes files, the last that runs commands).
type sedReader struct {
	s   string
	i   int
	out map[effect]string
}

// runs notes that the script runs commands, for the reason why.
func (r *sedReader) runs(why string) { r.out[runsCommands] = "sed script " + why }

// writes notes that the script writes files, unless a command before did.
func (r *sedReader) writes(why string) {
	if _, ok := r.out[writesFiles]; !ok {
		r.out[writesFiles] = "sed script " + why
	}
}

// restOfLine reads the script to the end of the line (not the "\n").
func (r *sedReader) restOfLine() string {
	end := strings.IndexByte(r.s[r.i:], '\n')
	if end < 0 {
		end = len(r.s) - r.i
	}
	line := r.s[r.i : r.i+end]
	r.i += end
	return line
}

// delimited skips a part ended by an unescaped d (s, y, addresses); it
// reports false when d does not come.
func (r *sedReader) delimited(d byte) bool {
	for ; r.i < len(r.s); r.i++ {
		switch r.s[r.i] {
		case '\\':
			r.i++
		case d:
			r.i++
			return true
		}
	}
	return false
}

// addresses skips the addresses before a command: numbers, $, /re/,
// \cREc, first~step, ranges, !. It reports false when a regular expression
// is not closed.
func (r *sedReader) addresses() bool {
	for r.i < len(r.s) {
		ch := r.s[r.i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == ',' || ch == '!' || ch == '$' || ch == '~' || ch == '+' || ch >= '0' && ch <= '9':
			r.i++
		case ch == '/':
			r.i++
			if !r.delimited('/') {
				return false
			}
			for r.i < len(r.s) && (r.s[r.i] == 'I' || r.s[r.i] == 'M') {
				r.i++
			}
		case ch == '\\' && r.i+1 < len(r.s):
			d := r.s[r.i+1]
			r.i += 2
			if !r.delimited(d) {
				return false
			}
		default:
			return true
		}
	}
	return true
}

// command reads one command (after its addresses) with its arguments. It
// reports false when the script cannot be read on, which it notes as
// running commands.
func (r *sedReader) command() bool {
	cmd := r.s[r.i]
	r.i++
	switch cmd {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case '#':
		r.restOfLine()
	case 'a', 'i', 'c':
		// Text to the end of the line; a backslash at its end continues it.
		for {
			line := r.restOfLine()
			if !strings.HasSuffix(line, "\\") || r.i >= len(r.s) {
				break
			}
			r.i++
		}
	case ':', 'b', 't', 'T':
		for r.i < len(r.s) && r.s[r.i] != ';' && r.s[r.i] != '\n' {
			r.i++
		}
	case 'q', 'Q', 'l', 'L', 'v':
		for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] >= '0' && r.s[r.i] <= '9') {
			r.i++
		}
	case 'r', 'R':
		r.restOfLine()
	case 'w', 'W':
		if f := strings.TrimSpace(r.restOfLine()); !harmlessTargets[f] {
			r.writes(fmt.Sprintf("%c %s writes files", cmd, f))
		}
	case 'e':
		r.runs("e runs commands")
		r.restOfLine()
	case 's', 'y':
		return r.substitute(cmd)
	default:
		r.runs(fmt.Sprintf("command %q cannot be read", cmd))
		return false
	}
	return true
}

// substitute reads the rest of an s or y command: its two delimited parts
// and, for s, its flags. It reports false as command does.
func (r *sedReader) substitute(cmd byte) bool {
	if r.i >= len(r.s) || r.s[r.i] == '\n' || r.s[r.i] == '\\' {
		r.runs("cannot be read")
		return false
	}
	d := r.s[r.i]
	r.i++
	for range 2 { // the pattern, then the replacement
		if !r.delimited(d) {
			r.runs("cannot be read")
			return false
		}
	}
	if cmd == 'y' {
		return true
	}
	return r.substituteFlags()
}

// substituteFlags reads the flags of an s command: e runs commands, w
// writes the file named to the end of the line. It reports false as
// command does.
func (r *sedReader) substituteFlags() bool {
	for r.i < len(r.s) && r.s[r.i] != ';' && r.s[r.i] != '\n' && r.s[r.i] != '}' {
		switch f := r.s[r.i]; {
		case f == 'e':
			r.runs("s///e runs commands")
			r.i++
		case f == 'w':
			r.i++
			if name := strings.TrimSpace(r.restOfLine()); !harmlessTargets[name] {
				r.writes("s///w " + name + " writes files")
			}
		case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9' || f == ' ':
			r.i++
		default:
			r.runs(fmt.Sprintf("s flag %q cannot be read", f))
			return false
		}
	}
	return true
}
