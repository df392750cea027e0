package commands

import (
	"strconv"
	"strings"
)

// arguments are what a command was invoked with, as its body's
// placeholders name them.
type arguments struct {
	raw   string   // the text after the command, trimmed
	words []string // raw split as SplitWords splits it
	names []string // the front matter's arguments: a name per position
	dir   string   // ${CLAUDE_SKILL_DIR}: a skill's folder, "" for a command
}

func newArguments(c Command, args string) arguments {
	return arguments{raw: args, words: SplitWords(args), names: c.ArgumentNames, dir: c.Dir}
}

// Substitute puts the arguments args of c into text as Claude Code does
// for commands and skills (code.claude.com, "Agent Skills", "Available
// string substitutions"):
//
//   - $ARGUMENTS is args whole;
//   - $ARGUMENTS[N] and its shorthand $N are the Nth word of args,
//     counted from 0 ($0 is the first, $1 the second), words split as
//     SplitWords splits them; the digits are read greedily ($10 is the
//     eleventh), and a placeholder past the last word stays as written;
//   - $name is the word at the position of name in the front matter's
//     arguments list (c.ArgumentNames), "" when there is no such word;
//   - ${CLAUDE_SKILL_DIR} is a skill's folder (c.Dir);
//   - a backslash before one of these keeps it as text without the
//     backslash (\$1 is "$1"); any other $ or \ stays as it is.
//
// The scan never reads what it put in, so an argument holding "$1" stays
// as typed. When args is not empty and no placeholder received any of it,
// it is appended on a line "ARGUMENTS: ...".
func Substitute(c Command, text, args string) string {
	out, received := newArguments(c, args).substitute(text)
	if !received && strings.TrimSpace(args) != "" {
		out += "\n\nARGUMENTS: " + strings.TrimSpace(args)
	}
	return out
}

// substitute puts a in text (see Substitute) and reports whether any
// placeholder received an argument.
func (a arguments) substitute(text string) (string, bool) { return a.put(text, false) }

// substituteShell puts a in a snippet's command line, each argument
// quoted for the shell where it lands (outside quotes, each word in
// single quotes; inside double quotes, ", \, $ and ` escaped; inside
// single quotes, ' closed and reopened): an argument is data, and cannot
// add a command, a redirection or an option-taking word boundary to the
// line ("/review 'a.go >.envrc'" diffs a file of that name).
func (a arguments) substituteShell(text string) (string, bool) { return a.put(text, true) }

// put is substitute, and with shell substituteShell.
func (a arguments) put(text string, shell bool) (string, bool) {
	var b strings.Builder
	received := false
	var quote byte // the shell quote the scan is in (shell only)
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\\' && i+1 < len(text) && text[i+1] == '$' {
			if n, _, _ := a.placeholder(text[i+1:]); n > 0 {
				b.WriteString(text[i+1 : i+1+n]) // escaped: the placeholder as text
				i += 1 + n
				continue
			}
		}
		if c != '$' {
			if shell {
				switch {
				case c == '\\' && quote != '\'' && i+1 < len(text):
					b.WriteString(text[i : i+2])
					i += 2
					continue
				case (c == '\'' || c == '"') && quote == 0:
					quote = c
				case c == quote:
					quote = 0
				}
			}
			b.WriteByte(c)
			i++
			continue
		}
		n, value, ok := a.placeholder(text[i:])
		switch {
		case n == 0:
			b.WriteByte(c)
			i++
			continue
		case ok:
			isArg := !strings.HasPrefix(text[i:], "${") // ${CLAUDE_SKILL_DIR} is no argument
			whole := strings.HasPrefix(text[i:], "$ARGUMENTS") && !strings.HasPrefix(text[i:], "$ARGUMENTS[")
			if shell && isArg {
				value = shellValue(value, whole, a.words, quote)
			}
			b.WriteString(value)
			if isArg {
				received = received || value != "" || whole
			}
		default:
			b.WriteString(text[i : i+n]) // past the last word: as written
		}
		i += n
	}
	return b.String(), received
}

// shellValue is an argument's value quoted for the shell quote it lands in
// (0 for none): whole ($ARGUMENTS) outside quotes is its words, each
// quoted.
func shellValue(value string, whole bool, words []string, quote byte) string {
	switch quote {
	case '\'':
		return strings.ReplaceAll(value, "'", `'\''`)
	case '"':
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(value)
	}
	if !whole {
		return singleQuoted(value)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = singleQuoted(w)
	}
	return strings.Join(quoted, " ")
}

// singleQuoted is s in single quotes, a ' in it closed and reopened.
func singleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// placeholder reads the placeholder s starts with ("$..."): its length (0
// for none), its value, and whether it has one (false for an index past
// the last word, which stays as written).
func (a arguments) placeholder(s string) (n int, value string, ok bool) {
	rest := s[1:]
	switch {
	case strings.HasPrefix(rest, "ARGUMENTS["):
		d := digits(rest[len("ARGUMENTS["):])
		if d == 0 || !strings.HasPrefix(rest[len("ARGUMENTS[")+d:], "]") {
			break
		}
		w, ok := a.word(rest[len("ARGUMENTS[") : len("ARGUMENTS[")+d])
		return 1 + len("ARGUMENTS[") + d + 1, w, ok
	case strings.HasPrefix(rest, "ARGUMENTS") && !identByte(rest, len("ARGUMENTS")):
		return 1 + len("ARGUMENTS"), a.raw, true
	case digits(rest) > 0:
		d := digits(rest)
		w, ok := a.word(rest[:d])
		return 1 + d, w, ok
	case a.dir != "" && strings.HasPrefix(rest, "{CLAUDE_SKILL_DIR}"):
		return 1 + len("{CLAUDE_SKILL_DIR}"), a.dir, true
	}
	for i, name := range a.names {
		if name != "" && strings.HasPrefix(rest, name) && !identByte(rest, len(name)) {
			w := ""
			if i < len(a.words) {
				w = a.words[i]
			}
			return 1 + len(name), w, true
		}
	}
	return 0, "", false
}

// word is the word at index (decimal digits), and whether there is one.
func (a arguments) word(index string) (string, bool) {
	i, err := strconv.Atoi(index)
	if err != nil || i >= len(a.words) {
		return "", false
	}
	return a.words[i], true
}

// digits counts the decimal digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// identByte reports whether s[i] continues an identifier (a letter, a
// digit or _), so that $ARGUMENTSX or $filename is not $ARGUMENTS or $file.
func identByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// SplitWords splits args into words as a shell does, which is how Claude
// Code numbers a command's arguments: white space separates words, single
// or double quotes keep a group together (without the quotes; "" is an
// empty word), and a backslash keeps the quote, backslash, dollar or white
// space after it as text (a backslash before anything else stays, so a
// Windows path keeps its backslashes). An MCP prompt's arguments are split
// the same way.
func SplitWords(args string) []string {
	var words []string
	var cur strings.Builder
	quote, in, escaped := rune(0), false, false
	for _, r := range args {
		switch {
		case escaped:
			if !strings.ContainsRune("\"'\\$ \t\n", r) {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped, in = false, true
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if escaped {
		cur.WriteRune('\\')
		in = true
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
