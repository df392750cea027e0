package markdown

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// run is text drawn one way; a hard line break is a run whose text is "\n".
type run struct {
	text string
	a    attrs
}

// piece is part of a word or a space between words, in one style.
type piece struct {
	text  string
	a     attrs
	cells int
}

// wrapRuns lays runs out in lines of at most width cells, breaking at
// spaces (dropped where a line breaks) and at hard breaks; a word wider
// than the line is cut at the width. Each line is painted (every run's
// style closed on its line) and holds no trailing space. Runs that hold
// only spaces give no lines.
func wrapRuns(runs []run, width int) []string {
	w := wrapper{width: width}
	var (
		word  []piece // the word being read
		wordW int
		space []piece // the spaces between the line and the word
		spW   int
	)
	placeWord := func() {
		if len(word) > 0 {
			w.place(word, wordW, space, spW)
			word, wordW, space, spW = word[:0], 0, space[:0], 0
		}
	}
	for _, r := range runs {
		if r.text == "\n" {
			placeWord()
			space, spW = space[:0], 0
			w.flushLine()
			continue
		}
		text := r.text
		if strings.IndexByte(text, '\n') >= 0 {
			// A line break inside a run (a code span or raw HTML across
			// lines, a hard break in an image's text) is a space.
			text = strings.ReplaceAll(text, "\n", " ")
		}
		for s := text; s != ""; {
			i := 0
			isSpace := s[0] == ' '
			for i < len(s) && (s[i] == ' ') == isSpace {
				i++
			}
			p := piece{text: s[:i], a: r.a}
			if isSpace {
				placeWord()
				p.cells = i
				space, spW = append(space, p), spW+i
			} else {
				p.cells = textWidth(p.text)
				word, wordW = append(word, p), wordW+p.cells
			}
			s = s[i:]
		}
	}
	placeWord()
	if len(w.line) > 0 {
		w.flushLine()
	}
	return w.lines
}

// wrapper is the lines wrapRuns has done and the line it fills.
type wrapper struct {
	width int
	lines []string
	line  []piece // the line being filled
	cells int     // its width
}

// flushLine paints the line being filled into lines and starts a new one.
func (w *wrapper) flushLine() {
	w.lines = append(w.lines, paintPieces(w.line))
	w.line, w.cells = w.line[:0], 0
}

// place puts word (wordW cells) on the line after space (spW cells), the
// spaces before it, or on a new line when it does not fit (the spaces are
// dropped there).
func (w *wrapper) place(word []piece, wordW int, space []piece, spW int) {
	if w.cells > 0 && w.cells+spW+wordW > w.width {
		w.flushLine()
	}
	if w.cells > 0 {
		w.line = append(w.line, space...)
		w.cells += spW
	}
	if wordW <= w.width-w.cells {
		w.line = append(w.line, word...)
		w.cells += wordW
	} else {
		w.cutWord(word)
	}
}

// cutWord places a word longer than a line, cut at the width: each line
// takes as many of its characters as fit.
func (w *wrapper) cutWord(word []piece) {
	for _, p := range word {
		for p.text != "" {
			head, n, rest := cutCells(p.text, w.width-w.cells)
			if head == "" {
				if w.cells > 0 { // the next character does not fit here
					w.flushLine()
					continue
				}
				// A character wider than the whole line.
				head, n = xansi.FirstGraphemeCluster(p.text, xansi.GraphemeWidth)
				rest = p.text[len(head):]
			}
			w.line = append(w.line, piece{head, p.a, n})
			w.cells += n
			p.text = rest
		}
	}
}

// paintPieces draws one line, merging neighbours of the same style.
func paintPieces(ps []piece) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].a == ps[i].a {
			j++
		}
		var t strings.Builder
		for _, p := range ps[i:j] {
			t.WriteString(p.text)
		}
		b.WriteString(paint(t.String(), ps[i].a))
		i = j
	}
	return b.String()
}

// cutCells splits plain text s after at most n cells, at a character
// boundary, and returns the head's width; it reads only the head, so
// cutting a long word into lines costs the word's length once.
func cutCells(s string, n int) (head string, width int, rest string) {
	i := 0
	for i < len(s) && width < n {
		if c := s[i]; c < 0x80 && (i+1 == len(s) || s[i+1] < 0x80) {
			i++
			width++
			continue
		}
		cluster, w := xansi.FirstGraphemeCluster(s[i:], xansi.GraphemeWidth)
		if cluster == "" || width+w > n {
			break
		}
		i += len(cluster)
		width += w
	}
	return s[:i], width, s[i:]
}

// textWidth is the width in cells of text without escape sequences: its
// length when it is ASCII, else as the terminal draws it.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return xansi.StringWidth(s)
		}
	}
	return len(s)
}
