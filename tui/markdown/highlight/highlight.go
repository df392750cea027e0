// Package highlight colours the code of fenced code blocks for the terminal, with chroma's lexers but none of
// chroma's registries: it embeds a chosen set of lexers in chroma's XML format (lexers/README.md lists them) and
// builds each one the first time a block in its language is highlighted, so that linking the package costs a
// program nothing at start-up. Colours are glamour's "dark" and "light" style sheets' and those of the interface's
// other themes (Scheme), as 24-bit SGR sequences.
package highlight

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// maxCode is the largest code Lines highlights, in bytes; longer code is shown plain.
const maxCode = 256 << 10

// DefaultLimit is the interface's bound on the time one call of Lines spends lexing. chroma's lexers are
// backtracking regular expressions (each match bounded by MatchLimit), and the code is
// untrusted model output: past this budget the code is shown plain. Ordinary code lexes at about 2 ms per hundred
// lines (BenchmarkLinesGo), so only pathological code reaches it; a frame of the interface should not wait longer.
const DefaultLimit = 200 * time.Millisecond

// Budget bounds the time one call of LinesWithin spends lexing. Limit is the longest it may take (0 or less: no
// bound); Now is the clock that measures it (nil: time.Now). A test that must not depend on the machine's load
// sets no Limit, or a clock it owns.
type Budget struct {
	Limit time.Duration
	Now   func() time.Time
}

// DefaultBudget is the interface's budget: DefaultLimit of wall-clock time, where a person would otherwise wait.
func DefaultBudget() Budget { return Budget{Limit: DefaultLimit, Now: time.Now} }

// start returns a function that reports whether the budget has run out since start was called.
func (b Budget) start() (spent func() bool) {
	if b.Limit <= 0 {
		return func() bool { return false }
	}
	now := b.Now
	if now == nil {
		now = time.Now
	}
	deadline := now().Add(b.Limit)
	return func() bool { return now().After(deadline) }
}

// reset ends every styled run.
const reset = "\x1b[m"

// Lines highlights code (the text of a fenced code block, tabs already expanded to spaces, lines separated by "\n",
// no trailing newline required) in the language named by lang (the first word of a fence's info string: "go",
// "Go", "py", "python", "sh", "bash", "js", "ts", "tsx", "rs", "c++", "yaml", "yml", "json", "diff", ...; matched
// case-insensitively against each lexer's name, aliases and file-name patterns such as "*.go" -> "main.go" also
// works). It returns one string per line of code (strings.Split(code, "\n") length, so a trailing "\n" gives a last
// empty line), each line carrying its own 24-bit SGR colour sequences and ending in a reset when it set any, so no
// style crosses a line. ok is false (and lines nil) when lang names no known language: the caller shows plain code.
//
// scheme picks the colours (Dark: glamour's dark style sheet's, Light: its light one's; see Scheme). Consecutive tokens of one style share one
// SGR sequence ("\x1b[" attributes and "38;2;R;G;B" "m", then "\x1b[m"); runs of spaces between runs carry none.
// The text of the lines, with the SGR sequences removed, is Clean(code): nothing in it can reach the terminal as a
// control.
//
// ok is also false, and the caller shows plain code, when code is longer than 256 KiB, when the language's lexer
// fails (it does not compile, it reports an error or panics) and when lexing takes longer than DefaultLimit (200 ms
// of wall-clock time; LinesWithin takes another budget). The first call for a language builds its lexer (0.3 ms for Go, 1-2 ms for Python or HTML; BenchmarkFirstUse). Lines is safe
// for concurrent use, and its output depends only on its arguments (unless lexing runs out of time).
func Lines(code, lang string, scheme Scheme) (lines []string, ok bool) {
	return LinesWithin(code, lang, scheme, DefaultBudget())
}

// LinesWithin is Lines with the lexing time bounded by budget instead of DefaultBudget: ok is false when budget runs
// out.
func LinesWithin(code, lang string, scheme Scheme, budget Budget) (lines []string, ok bool) {
	if len(code) > maxCode {
		return nil, false
	}
	i := find(lang)
	if i < 0 {
		return nil, false
	}
	lexer, err := lexerFor(i)
	if err != nil {
		return nil, false
	}
	text := Clean(code)
	tokens, ok := tokenise(lexer, text, budget)
	if !ok {
		return nil, false
	}
	return render(tokens, paletteOf(scheme), strings.Count(text, "\n")+1), true
}

// Knows reports whether Lines finds a lexer for lang (named as Lines takes it). The lexer may still fail to build.
func Knows(lang string) bool { return find(lang) >= 0 }

// tokenise lexes text and checks that the tokens spell it out (a lexer may add a final "\n"), within budget. ok is
// false when the lexer reports an error, panics, runs out of time or loses text.
func tokenise(lexer chroma.Lexer, text string, budget Budget) (tokens []chroma.Token, ok bool) {
	defer func() {
		if recover() != nil {
			tokens, ok = nil, false
		}
	}()
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		return nil, false
	}
	spent := budget.start()
	rest := text
	for t := it(); t != chroma.EOF; t = it() {
		if len(tokens)&63 == 63 && spent() {
			return nil, false
		}
		if t.Value == "" {
			continue
		}
		switch {
		case strings.HasPrefix(rest, t.Value):
			rest = rest[len(t.Value):]
		case rest+"\n" == t.Value || (rest == "" && t.Value == "\n"):
			// The "\n" the lexer added (ensure_nl), alone or at the end of the last token.
			t.Value, rest = rest, ""
			if t.Value == "" {
				continue
			}
		default:
			return nil, false
		}
		tokens = append(tokens, t)
	}
	return tokens, rest == ""
}

// render lays tokens out as n lines, each with its own SGR sequences.
func render(tokens []chroma.Token, p *palette, n int) []string {
	lines := make([]string, 0, n)
	var w lineWriter
	for _, t := range tokens {
		st := p.resolve(t.Type)
		v := t.Value
		for {
			nl := strings.IndexByte(v, '\n')
			if nl < 0 {
				w.write(v, st)
				break
			}
			w.write(v[:nl], st)
			lines = append(lines, w.end())
			v = v[nl+1:]
		}
	}
	lines = append(lines, w.end())
	return lines[:n]
}

// lineWriter builds one line of output: runs of text in one style, each opened by its SGR sequence and closed by
// reset, with blank text between runs left plain.
type lineWriter struct {
	b     []byte // the line so far
	open  bool   // a run is open (its SGR written, its reset not yet)
	cur   style  // the open run's style
	blank []byte // blank text not yet written: it goes inside the run if the next text continues it
}

// write adds s, drawn in st, to the line.
func (w *lineWriter) write(s string, st style) {
	if s == "" {
		return
	}
	if isBlank(s) {
		w.blank = append(w.blank, s...)
		return
	}
	if w.open && st == w.cur && !st.underline {
		w.b = append(w.b, w.blank...)
	} else {
		w.close()
		w.b = append(w.b, w.blank...)
		if !st.plain() {
			w.b = st.appendSGR(w.b)
			w.open, w.cur = true, st
		}
	}
	w.blank = w.blank[:0]
	w.b = append(w.b, s...)
}

// close ends the open run, if any.
func (w *lineWriter) close() {
	if w.open {
		w.b = append(w.b, reset...)
		w.open = false
	}
}

// end finishes the line and returns it; the writer starts a new, empty line.
func (w *lineWriter) end() string {
	w.close()
	w.b = append(w.b, w.blank...)
	line := string(w.b)
	w.b, w.blank = w.b[:0], w.blank[:0]
	return line
}

// isBlank reports whether s is only spaces and tabs.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// Clean makes text safe to write to a terminal: every control character but tab and line feed (ESC among them),
// DEL, the C1 controls U+0080-U+009F (a terminal may read U+009B as CSI), bytes that are not UTF-8, and the
// bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069 (which can make code read differently from
// what it does) become U+FFFD. A carriage return before a line feed or at the end is dropped; any other becomes a
// space. Text with none of these is returned as it is. Lines cleans the code it is given; tui/markdown cleans
// everything it draws with it.
func Clean(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		clean = !unsafeRune(r, size) && r != '\r'
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && (i+1 == len(s) || s[i+1] == '\n'):
			// dropped: the CR of a CRLF line end
		case r == '\r':
			b.WriteByte(' ')
		case unsafeRune(r, size):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r, decoded from size bytes, must not reach the terminal as it is (a carriage return
// aside; see Clean).
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20:
		return r != '\n' && r != '\t' && r != '\r'
	case r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
