package tui

import "unicode"

// vimText is the input as the vim engine sees it: its runes, rows joined by
// '\n' (the textarea's Value), and the cursor as an offset into them (0 to
// len(text); a rune index, so a wide rune is one position).
type vimText struct {
	text []rune
	pos  int
}

// newVimText is text with the cursor at row and col (runes), clamped into
// the text.
func newVimText(text string, row, col int) vimText {
	t := vimText{text: []rune(text)}
	t.pos = t.posAt(row, col)
	return t
}

// String is the text.
func (t vimText) String() string { return string(t.text) }

// rowCol is the cursor's row and column (runes).
func (t vimText) rowCol() (row, col int) {
	return t.rowColOf(t.pos)
}

func (t vimText) rowColOf(p int) (row, col int) {
	start := 0
	for i := 0; i < p && i < len(t.text); i++ {
		if t.text[i] == '\n' {
			row++
			start = i + 1
		}
	}
	return row, p - start
}

// rows is the number of rows (an empty text has one).
func (t vimText) rows() int {
	n := 1
	for _, r := range t.text {
		if r == '\n' {
			n++
		}
	}
	return n
}

// rowStart is the offset of row's first rune; rows past the last give the
// last row's.
func (t vimText) rowStart(row int) int {
	p := 0
	for i, r := range t.text {
		if row == 0 {
			break
		}
		if r == '\n' {
			row--
			p = i + 1
		}
	}
	return p
}

// posAt is the offset of row and col, each clamped into the text.
func (t vimText) posAt(row, col int) int {
	row = min(max(row, 0), t.rows()-1)
	s := t.rowStart(row)
	e := t.lineEnd(s)
	return s + min(max(col, 0), e-s)
}

// lineStart is the offset of the first rune of p's line.
func (t vimText) lineStart(p int) int {
	for p > 0 && t.text[p-1] != '\n' {
		p--
	}
	return p
}

// lineEnd is the offset of the '\n' ending p's line, or len(text).
func (t vimText) lineEnd(p int) int {
	for p < len(t.text) && t.text[p] != '\n' {
		p++
	}
	return p
}

// lastChar is where normal mode's cursor stands at the end of p's line:
// on its last rune, or at its start when it is empty.
func (t vimText) lastChar(p int) int {
	s, e := t.lineStart(p), t.lineEnd(p)
	return max(s, e-1)
}

// normal is t with the cursor where normal mode allows it: on a rune of
// its line, never after the last one (an empty line's only place is its
// start).
func (t vimText) normal() vimText {
	t.pos = min(max(t.pos, 0), len(t.text))
	t.pos = min(t.pos, t.lastChar(t.pos))
	return t
}

// firstNonBlank is the offset of the first rune of p's line that is not a
// space or tab (the line's end when it has none).
func (t vimText) firstNonBlank(p int) int {
	p = t.lineStart(p)
	for p < len(t.text) && isBlank(t.text[p]) {
		p++
	}
	return p
}

// splice replaces text[from:to] with ins and returns the new text (t's
// runes are never modified in place: undo keeps them).
func (t vimText) splice(from, to int, ins []rune) []rune {
	out := make([]rune, 0, len(t.text)-(to-from)+len(ins))
	out = append(out, t.text[:from]...)
	out = append(out, ins...)
	return append(out, t.text[to:]...)
}

func (t vimText) equal(u vimText) bool {
	if len(t.text) != len(u.text) {
		return false
	}
	for i := range t.text {
		if t.text[i] != u.text[i] {
			return false
		}
	}
	return true
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// runeClass is a rune's class for word motions: 0 blank (and the line
// break), 1 a word rune (letter, digit, underscore), 2 any other; with
// big (W, B, E) every non-blank rune is of class 1.
func runeClass(r rune, big bool) int {
	switch {
	case isBlank(r) || r == '\n':
		return 0
	case big:
		return 1
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	}
	return 2
}

// emptyLineAt reports whether p is the start of an empty line (vim's word
// motions stop there).
func (t vimText) emptyLineAt(p int) bool {
	return (p == 0 || t.text[p-1] == '\n') && (p == len(t.text) || t.text[p] == '\n')
}

// wordForward is where w (W with big) goes from p: the start of the next
// word or of the next empty line; len(text) when there is none.
func (t vimText) wordForward(p int, big bool) int {
	n := len(t.text)
	if p >= n {
		return n
	}
	if c := runeClass(t.text[p], big); c != 0 {
		for p < n && runeClass(t.text[p], big) == c {
			p++
		}
	}
	for p < n {
		switch {
		case t.text[p] == '\n':
			p++
			if t.emptyLineAt(p) {
				return p
			}
		case isBlank(t.text[p]):
			p++
		default:
			return p
		}
	}
	return n
}

// wordBackward is where b (B) goes from p: the start of this or the
// previous word, or an empty line; 0 at the most.
func (t vimText) wordBackward(p int, big bool) int {
	if p <= 0 {
		return 0
	}
	p--
	for p > 0 && runeClass(t.text[p], big) == 0 && !t.emptyLineAt(p) {
		p--
	}
	if c := runeClass(t.text[p], big); c != 0 {
		for p > 0 && runeClass(t.text[p-1], big) == c {
			p--
		}
	}
	return p
}

// wordEnd is where e (E) goes from p: the last rune of this or the next
// word; the text's last rune when there is none.
func (t vimText) wordEnd(p int, big bool) int {
	n := len(t.text)
	p++
	for p < n && runeClass(t.text[p], big) == 0 {
		p++
	}
	if p >= n {
		return max(n-1, 0)
	}
	c := runeClass(t.text[p], big)
	for p+1 < n && runeClass(t.text[p+1], big) == c {
		p++
	}
	return p
}
