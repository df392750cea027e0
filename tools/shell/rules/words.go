package rules

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a simple command as far as it can be known before the
// command runs.
type arg struct {
	// val is the word's value after quote removal when exact; otherwise it
	// is the word's source text.
	val string
	// text is the word for display: its value, quoted when needed, or its
	// source text when the value is not known.
	text string
	// exact means the word expands to exactly one field, equal to val.
	exact bool
	// single means the word expands to exactly one field, whose value may
	// not be known (a double-quoted "$x"). Exact words are single.
	single bool
}

// literalArg returns an exact arg with value v.
func literalArg(v string) arg {
	return arg{val: v, text: displayValue(v), exact: true, single: true}
}

// dynamic returns a copy of a that is no longer exact, as when a program
// replaces part of it at run time (find's {} or xargs -I).
func (a arg) dynamic() arg {
	a.exact = false
	a.val = a.text
	return a
}

// evalWord computes what can be known statically about w. src is the source
// text the word was parsed from; it supplies the display text of words whose
// value is not known.
func evalWord(src string, w *syntax.Word) arg {
	if w == nil {
		return arg{}
	}
	e := wordEval{exact: true, single: true}
	for _, part := range w.Parts {
		e.part(part)
	}
	if e.braceSeen {
		e.exact, e.single = false, false
	}
	if e.exact {
		return literalArg(e.sb.String())
	}
	text := sourceText(src, w)
	return arg{val: text, text: text, single: e.single}
}

// sourceText returns the source of node n, or a printed form of it when the
// positions do not fit src.
func sourceText(src string, n syntax.Node) string {
	start, end := n.Pos(), n.End()
	if start.IsValid() && end.IsValid() {
		s, e := start.Offset(), end.Offset()
		if s <= e && e <= uint(len(src)) {
			return src[s:e]
		}
	}
	var sb strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&sb, n); err != nil {
		return "?"
	}
	return sb.String()
}

// wordEval accumulates the static value of a word part by part, following
// bash's quote removal, and notes anything that makes the value unknown.
type wordEval struct {
	sb     strings.Builder
	exact  bool
	single bool
	// Unquoted characters that may start brace expansion or globbing, seen
	// so far across the parts of the word.
	braceOpen, braceSep, braceSeen bool
	bracketOpen                    bool
}

func (e *wordEval) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		e.unquoted(p.Value)
	case *syntax.SglQuoted:
		if p.Dollar && strings.ContainsRune(p.Value, '\\') {
			// ANSI-C escapes ($'\x72m') are not evaluated here.
			e.exact = false
			return
		}
		e.sb.WriteString(p.Value)
	case *syntax.DblQuoted:
		if p.Dollar {
			// $"..." is translated through the locale's catalogue.
			e.exact = false
		}
		for _, q := range p.Parts {
			e.quoted(q)
		}
	case *syntax.ProcSubst:
		// Expands to one /dev/fd path.
		e.exact = false
	default:
		// Parameter, command and arithmetic expansions, globs and brace
		// expansions: the value is unknown and is split into fields.
		e.exact, e.single = false, false
	}
}

// unquoted adds an unquoted literal, removing backslash escapes and noting
// glob, brace and tilde characters.
func (e *wordEval) unquoted(v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					e.sb.WriteByte(v[i])
				}
				continue
			}
			e.sb.WriteByte(c)
			continue
		}
		switch c {
		case '*', '?':
			e.exact, e.single = false, false
		case '[':
			e.bracketOpen = true
		case ']':
			if e.bracketOpen {
				e.exact, e.single = false, false
			}
		case '~':
			// Tilde expansion, at the start or (in bash) after = or :.
			e.exact = false
		case '{':
			e.braceOpen = true
		case ',':
			if e.braceOpen {
				e.braceSep = true
			}
		case '.':
			if e.braceOpen && i+1 < len(v) && v[i+1] == '.' {
				e.braceSep = true
			}
		case '}':
			if e.braceOpen && e.braceSep {
				e.braceSeen = true
			}
		}
		e.sb.WriteByte(c)
	}
}

// quoted adds a part found inside double quotes.
func (e *wordEval) quoted(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		v := p.Value
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c == '\\' && i+1 < len(v) {
				switch v[i+1] {
				case '$', '`', '"', '\\':
					i++
					e.sb.WriteByte(v[i])
					continue
				case '\n':
					i++
					continue
				}
			}
			e.sb.WriteByte(c)
		}
	case *syntax.ParamExp:
		e.exact = false
		if expandsToList(p) {
			e.single = false
		}
	default:
		e.exact = false
	}
}

// expandsToList reports whether a quoted parameter expansion may still give
// zero or several fields: "$@", "${a[@]}", "${!prefix@}".
func expandsToList(p *syntax.ParamExp) bool {
	if p.Param != nil && p.Param.Value == "@" {
		return true
	}
	if p.Names == syntax.NamesPrefixWords {
		return true
	}
	if w, ok := p.Index.(*syntax.Word); ok && len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && l.Value == "@" {
			return true
		}
	}
	return p.NestedParam != nil
}

// displayValue shows a static value as a shell word: as is when it holds no
// special characters, quoted otherwise.
func displayValue(v string) string {
	if (v != "" && strings.Trim(v, safeChars) == "") || plainTokens[v] {
		return v
	}
	q, err := syntax.Quote(v, syntax.LangBash)
	if err != nil {
		return strconv.Quote(v)
	}
	return q
}

// plainTokens are words that bash reads literally although they hold
// characters that are special elsewhere.
var plainTokens = map[string]bool{"[": true, "]": true, "{}": true}

const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"

// joinArgs shows a simple command: its words' display texts joined by spaces.
func joinArgs(args []arg) string {
	texts := make([]string, len(args))
	for i, a := range args {
		texts[i] = a.text
	}
	return strings.Join(texts, " ")
}

// isIdent reports whether s is a shell variable name.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isNumber reports whether s is an arithmetic constant ([base#]digits),
// which bash evaluates without looking up any variable.
func isNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	return strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_#") == ""
}

// isInt reports whether s is an optionally signed decimal integer.
func isInt(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}
