package tui

import "slices"

// run does one parsed command on t (normal mode) and returns the input
// after it.
func (v *vim) run(c vimCmd, t vimText) vimText {
	t = t.normal()
	want := v.want
	v.want = -1
	n := max(c.count, 1)
	switch c.action {
	case "u":
		return v.undoRedo(&v.undo, &v.redo, n, t)
	case "ctrl+r":
		return v.undoRedo(&v.redo, &v.undo, n, t)
	case ".":
		return v.repeat(c.count, t)
	}
	if c.op == "" && c.action == "" {
		return v.move(c, want, t)
	}
	before := t
	after, insert := v.change(c, n, t)
	if insert {
		v.mode = vimInsertMode
		v.inserting = &vimInsert{cmd: c, before: before, start: after}
		return after
	}
	if c.op != "y" {
		v.record(before, after, vimChange{cmd: c})
	}
	return after.normal()
}

// undoRedo takes n snapshots from one stack, keeping the present on the
// other: u with undo and redo, Ctrl+R the other way round.
func (v *vim) undoRedo(from, to *[]vimText, n int, t vimText) vimText {
	for ; n > 0 && len(*from) > 0; n-- {
		prev := (*from)[len(*from)-1]
		*from = (*from)[:len(*from)-1]
		*to = append(*to, t)
		t = prev
	}
	return t.normal()
}

// repeat is ".": the last change again at the cursor, with count instead
// of its own when one is typed, and the text typed after it.
func (v *vim) repeat(count int, t vimText) vimText {
	if v.last == nil {
		return t
	}
	last := *v.last
	if count > 0 {
		last.cmd.count = count
	}
	t = v.run(last.cmd, t)
	if v.mode == vimInsertMode {
		t = vimText{text: t.splice(t.pos, t.pos, last.text), pos: t.pos + len(last.text)}
		t = v.escape(t)
	}
	return t
}

// move is a motion alone: the cursor goes where it leads, count times;
// j and k keep to want, the column of the first of them (-1: none yet;
// after $ the line's end).
func (v *vim) move(c vimCmd, want int, t vimText) vimText {
	row, col := t.rowCol()
	n, motion := max(c.count, 1), c.motion
	switch motion {
	case "h":
		t.pos = max(t.lineStart(t.pos), t.pos-n)
	case "l":
		t.pos = min(t.lastChar(t.pos), t.pos+n)
	case "j", "k":
		if motion == "k" {
			n = -n
		}
		if want < 0 {
			want = col
		}
		v.want = want
		t.pos = t.posAt(row+n, want)
	case "gg", "G":
		t.pos = t.firstNonBlank(t.rowStart(lineTarget(motion, c.count, t)))
	case "$":
		t.pos = t.lastChar(t.rowStart(row + n - 1))
		v.want = vimMaxCol
	default:
		t.pos = t.target(motion, n)
	}
	return t.normal()
}

// vimMaxCol is the column j and k keep to after $: every line's end.
const vimMaxCol = 1 << 30

// lineTarget is the row gg and G go to: the count's line (count 0: none
// typed), else the first (gg) or the last (G).
func lineTarget(motion string, count int, t vimText) int {
	switch {
	case count > 0:
		return min(count, t.rows()) - 1
	case motion == "G":
		return t.rows() - 1
	}
	return 0
}

// target is where a character motion (w b e W B E 0 ^) leads from the
// cursor, n times.
func (t vimText) target(motion string, n int) int {
	p := t.pos
	for range n {
		q := p
		switch motion {
		case "w", "W":
			q = t.wordForward(p, motion == "W")
		case "b", "B":
			q = t.wordBackward(p, motion == "B")
		case "e", "E":
			q = t.wordEnd(p, motion == "E")
		case "0":
			return t.lineStart(p)
		case "^":
			return t.firstNonBlank(p)
		}
		if q == p {
			break
		}
		p = q
	}
	return p
}

// vimSpan is the text an operator works on: text[from:to], whole lines
// when lines (from at a line's start, to at its last line's end).
type vimSpan struct {
	from, to int
	lines    bool
}

// span is what c's operator works on from the cursor; ok is false when the
// motion cannot move (dj on the last line).
func (v *vim) span(c vimCmd, n int, t vimText) (vimSpan, bool) {
	row, _ := t.rowCol()
	rows := func(a, b int) (vimSpan, bool) {
		a, b = min(a, b), max(a, b)
		return vimSpan{from: t.rowStart(a), to: t.lineEnd(t.rowStart(b)), lines: true}, true
	}
	p := t.pos
	switch c.motion {
	case c.op: // dd cc yy
		return rows(row, min(row+n-1, t.rows()-1))
	case "j":
		if row+1 >= t.rows() {
			return vimSpan{}, false
		}
		return rows(row, min(row+n, t.rows()-1))
	case "k":
		if row == 0 {
			return vimSpan{}, false
		}
		return rows(max(row-n, 0), row)
	case "gg", "G":
		return rows(row, lineTarget(c.motion, c.count, t))
	case "h":
		return vimSpan{from: max(t.lineStart(p), p-n), to: p}, true
	case "l":
		return vimSpan{from: p, to: min(t.lineEnd(p), p+n)}, true
	case "$":
		return vimSpan{from: p, to: t.lineEnd(t.rowStart(row + n - 1))}, true
	case "e", "E":
		return vimSpan{from: p, to: min(t.target(c.motion, n)+1, len(t.text))}, true
	case "w", "W":
		big := c.motion == "W"
		if c.op == "c" && p < len(t.text) && runeClass(t.text[p], big) != 0 {
			// cw on a word changes to its end, not the blanks after it:
			// ce, but the word under the cursor counts even on its last rune.
			e := p
			if p+1 < len(t.text) && runeClass(t.text[p+1], big) == runeClass(t.text[p], big) {
				e = t.wordEnd(p, big)
			}
			for range n - 1 {
				e = t.wordEnd(e, big)
			}
			return vimSpan{from: p, to: min(e+1, len(t.text))}, true
		}
		return t.wordSpan(n, big)
	}
	q := t.target(c.motion, n) // b B 0 ^
	return vimSpan{from: min(p, q), to: max(p, q)}, true
}

// wordSpan is dw's text: n words forward, but the last one's move stops at
// its line's end (vim: "the last word moved over is at the end of a
// line"); dw on an empty line takes the line.
func (t vimText) wordSpan(n int, big bool) (vimSpan, bool) {
	p := t.pos
	if t.emptyLineAt(p) && p < len(t.text) && n == 1 {
		return vimSpan{from: p, to: p, lines: true}, true
	}
	for i := range n {
		q := t.wordForward(p, big)
		if i == n-1 && q > t.lineEnd(p) {
			q = t.lineEnd(p)
		}
		if q == p {
			break
		}
		p = q
	}
	return vimSpan{from: t.pos, to: p}, true
}

// change does an operator or an edit and returns the input after it and
// whether insert mode begins.
func (v *vim) change(c vimCmd, n int, t vimText) (vimText, bool) {
	p := t.pos
	ls, le := t.lineStart(p), t.lineEnd(p)
	switch c.action {
	case "x":
		return v.change(vimCmd{op: "d", motion: "l"}, n, t)
	case "X":
		return v.change(vimCmd{op: "d", motion: "h"}, n, t)
	case "D":
		return v.change(vimCmd{op: "d", motion: "$"}, n, t)
	case "C":
		return v.change(vimCmd{op: "c", motion: "$"}, n, t)
	case "p", "P":
		return v.put(c.action == "P", n, t), false
	case "i":
		return t, true
	case "a":
		return vimText{text: t.text, pos: min(p+1, le)}, true
	case "I":
		return vimText{text: t.text, pos: t.firstNonBlank(p)}, true
	case "A":
		return vimText{text: t.text, pos: le}, true
	case "o":
		return vimText{text: t.splice(le, le, []rune{'\n'}), pos: le + 1}, true
	case "O":
		return vimText{text: t.splice(ls, ls, []rune{'\n'}), pos: ls}, true
	}
	s, ok := v.span(c, n, t)
	if !ok {
		return t, false
	}
	if s.from == s.to && !s.lines { // x on an empty line: the register keeps what it held
		return vimText{text: t.text, pos: s.from}, c.op == "c"
	}
	v.yank(s, t)
	switch c.op {
	case "y":
		if s.lines {
			row, col := t.rowCol()
			r, _ := t.rowColOf(s.from)
			return vimText{text: t.text, pos: t.posAt(min(r, row), col)}, false
		}
		return vimText{text: t.text, pos: s.from}, false
	case "c": // cc leaves its lines one empty line
		return vimText{text: t.splice(s.from, s.to, nil), pos: s.from}, true
	}
	if !s.lines {
		return vimText{text: t.splice(s.from, s.to, nil), pos: s.from}, false
	}
	from, to := s.from, s.to
	switch {
	case to < len(t.text):
		to++ // the '\n' after the last line
	case from > 0:
		from-- // the last lines: the '\n' before them
	}
	out := vimText{text: t.splice(from, to, nil), pos: from}
	if from < s.from {
		out.pos = out.lineStart(from)
	}
	out.pos = out.firstNonBlank(min(out.pos, len(out.text)))
	return out, false
}

// yank puts s's text in the register.
func (v *vim) yank(s vimSpan, t vimText) {
	v.reg = vimRegister{text: slices.Clone(t.text[s.from:s.to]), lines: s.lines}
}

// put is p (after the cursor, or below its line) and P (before, above), n
// times.
func (v *vim) put(before bool, n int, t vimText) vimText {
	if len(v.reg.text) == 0 && !v.reg.lines {
		return t
	}
	var ins []rune
	if v.reg.lines {
		for i := range n {
			if i > 0 || !before {
				ins = append(ins, '\n')
			}
			ins = append(ins, v.reg.text...)
		}
		if before {
			ls := t.lineStart(t.pos)
			ins = append(ins, '\n')
			out := vimText{text: t.splice(ls, ls, ins), pos: ls}
			out.pos = out.firstNonBlank(ls)
			return out
		}
		le := t.lineEnd(t.pos)
		out := vimText{text: t.splice(le, le, ins), pos: le + 1}
		out.pos = out.firstNonBlank(le + 1)
		return out
	}
	for range n {
		ins = append(ins, v.reg.text...)
	}
	at := t.pos
	if !before && at < t.lineEnd(at) {
		at++
	}
	return vimText{text: t.splice(at, at, ins), pos: at + len(ins) - 1}
}
