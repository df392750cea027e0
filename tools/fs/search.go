package fs

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds the lines of a text that a regular expression matches. Like
// grep, it matches line by line: a match never spans lines. To be fast it
// looks for a literal that every match contains (bytes.Index runs at memory
// speed) and runs the regexp only on the lines where the literal occurs.
type matcher struct {
	re    *regexp.Regexp // the pattern in multi-line mode
	lit   []byte         // literal every match contains, or nil
	fold  *foldFinder    // else an ASCII literal every match contains in some letter case, or nil
	whole bool           // the pattern is just the literal: finding it is a match
}

// newMatcher compiles pattern (Go RE2 syntax).
func newMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	tree, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return m, nil
	}
	tree = tree.Simplify()
	lit, fold := requiredLiteral(tree)
	if lit == "" || strings.ContainsAny(lit, "\n\uFFFD") {
		return m, nil
	}
	whole := tree.Op == syntax.OpLiteral
	switch {
	case !fold:
		m.lit, m.whole = []byte(lit), whole
	case isASCII(lit):
		m.fold, m.whole = newFoldFinder(strings.ToLower(lit)), whole
	}
	return m, nil
}

// requiredLiteral returns the longest literal that every match of re
// contains, and whether it matches case-insensitively.
func requiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		for _, sub := range re.Sub {
			l, f := requiredLiteral(sub)
			if len(l) > len(best) || len(l) == len(best) && bestFold && !f {
				best, bestFold = l, f
			}
		}
		return best, bestFold
	}
	return "", false
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// scan calls emit with the start and end (before the newline) of each line
// of text that matches, in order, and stops when emit returns false.
func (m *matcher) scan(text []byte, emit func(start, end int) bool) {
	fold := m.fold
	if fold != nil && fold.risky && (bytes.Contains(text, kelvin) || bytes.Contains(text, longS)) {
		fold = nil // k and s also match these; let the regexp look
	}
	for pos := 0; pos < len(text); {
		var at int
		switch {
		case m.lit != nil:
			at = bytes.Index(text[pos:], m.lit)
		case fold != nil:
			at = fold.index(text[pos:])
		default:
			loc := m.re.FindIndex(text[pos:])
			at = -1
			if loc != nil {
				at = loc[0]
			}
		}
		if at < 0 {
			return
		}
		at += pos
		start := pos + bytes.LastIndexByte(text[pos:at], '\n') + 1
		end := bytes.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		if (m.whole && (m.lit != nil || fold != nil)) || m.re.Match(text[start:end]) {
			if !emit(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// The UTF-8 forms of KELVIN SIGN and LATIN SMALL LETTER LONG S, which
// case-insensitive k and s match.
var (
	kelvin = []byte("\u212A")
	longS  = []byte("\u017F")
)

// foldFinder finds an ASCII literal in any mix of letter cases. It looks
// for the literal's rarest byte in both cases with bytes.IndexByte and
// compares around each hit.
type foldFinder struct {
	lit    []byte // lower case
	at     int    // index of the rarest byte in lit
	lo, up byte   // that byte in both cases
	risky  bool   // lit has k or s (see kelvin, longS)
}

func newFoldFinder(lower string) *foldFinder {
	f := &foldFinder{lit: []byte(lower), risky: strings.ContainsAny(lower, "ks")}
	for i := range len(lower) {
		if byteRank(lower[i]) < byteRank(lower[f.at]) {
			f.at = i
		}
	}
	f.lo, f.up = lower[f.at], lower[f.at]
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// index returns the first index of the literal in text, or -1.
func (f *foldFinder) index(text []byte) int {
	nextLo, nextUp := -2, -2 // -2: not searched yet; -1: none left
	for from := 0; ; {
		if nextLo != -1 && nextLo < from {
			nextLo = indexFrom(text, f.lo, from)
		}
		if f.up == f.lo {
			nextUp = nextLo
		} else if nextUp != -1 && nextUp < from {
			nextUp = indexFrom(text, f.up, from)
		}
		hit := nextLo
		if hit < 0 || (nextUp >= 0 && nextUp < hit) {
			hit = nextUp
		}
		if hit < 0 {
			return -1
		}
		if s := hit - f.at; s >= 0 && s+len(f.lit) <= len(text) && equalFoldASCII(text[s:s+len(f.lit)], f.lit) {
			return s
		}
		from = hit + 1
	}
}

func indexFrom(text []byte, c byte, from int) int {
	i := bytes.IndexByte(text[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII reports whether b equals the lower-case lower, ignoring
// ASCII letter case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank estimates how common c is in source code, lower being rarer.
func byteRank(c byte) int {
	const common = " etaoinsrlcdu\tmph.fg_(),b=;y:\"w/v'k-x*{}#>0<1j[]q2z"
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	if i := strings.IndexByte(common, c); i >= 0 {
		return len(common) - i
	}
	return 0
}
