package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// noteItem is a dim note in the pane: which tools pick_tools picked,
// "cancelled", a retry. Usually one line; a longer text wraps.
type noteItem struct {
	st   *styles
	text string

	cacheWidth int
	cache      string
}

var _ item = (*noteItem)(nil)

// newNoteItem returns a note with text; its line breaks are kept, escape
// sequences and other control characters dropped.
func newNoteItem(st *styles, text string) *noteItem {
	return &noteItem{st: st, text: strings.TrimSpace(ansi.Strip(text)), cacheWidth: -1}
}

// setText replaces the note's text (a retry note counting its attempts).
func (n *noteItem) setText(text string) {
	n.text = strings.TrimSpace(ansi.Strip(text))
	n.cacheWidth = -1
}

// Render implements item: the note indented by two cells and wrapped to
// width. It caches per width.
func (n *noteItem) Render(width int) string {
	if n.cacheWidth == width {
		return n.cache
	}
	lines := wrapText(n.text, max(width-2, 1))
	for i, l := range lines {
		lines[i] = "  " + n.st.Note.Render(l)
	}
	n.cache = strings.Join(fitWidth(lines, width), "\n")
	n.cacheWidth = width
	return n.cache
}

// errorItem is an error shown in the pane (provider unreachable, step limit),
// in the error style and wrapped to the width.
type errorItem struct {
	st   *styles
	text string

	cacheWidth int
	cache      string
}

var _ item = (*errorItem)(nil)

// newErrorItem returns an error item with text, which may span lines.
func newErrorItem(st *styles, text string) *errorItem {
	return &errorItem{st: st, text: strings.TrimSpace(ansi.Strip(text)), cacheWidth: -1}
}

// Render implements item: "✗ " and the text wrapped to width, continuation
// lines aligned under the text. It caches per width.
func (e *errorItem) Render(width int) string {
	if e.cacheWidth == width {
		return e.cache
	}
	lines := wrapText(e.text, max(width-4, 1))
	for i, l := range lines {
		mark := "    "
		if i == 0 {
			mark = "  " + e.st.Error.Render("✗") + " "
		}
		lines[i] = mark + e.st.Error.Render(l)
	}
	e.cache = strings.Join(fitWidth(lines, width), "\n")
	e.cacheWidth = width
	return e.cache
}

// Text helpers shared by the components. Widths are terminal cells
// (ansi.StringWidth): wide characters count two, escape sequences none.

// textWidth is the number of cells s takes.
func textWidth(s string) int { return ansi.StringWidth(s) }

// cutTo returns s cut to at most w cells, ending in "…" when it was cut.
// Escape sequences in s stay balanced.
func cutTo(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fitWidth cuts, in place, every line of lines wider than w cells.
func fitWidth(lines []string, w int) []string {
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, max(w, 0), "")
		}
	}
	return lines
}

// oneLine returns s as plain text on one line: escape sequences removed,
// tabs and line breaks turned into spaces, other control characters dropped.
func oneLine(s string) string {
	s = ansi.Strip(s)
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s))
}

// plainLine makes one line of program output safe to measure and show:
// what a carriage return overwrote is dropped, tabs expand to 4-column stops
// and control characters go. s must hold no escape sequences.
func plainLine(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\r"), '\r'); i >= 0 {
		s = s[i+1:]
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch {
		case r == '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case r < 0x20 || r == 0x7f:
		default:
			b.WriteRune(r)
			col += ansi.StringWidth(string(r))
		}
	}
	return b.String()
}

// outputLines splits a tool's output into plain lines without the trailing
// blank ones. It keeps at most keep lines and returns the total count.
func outputLines(content string, keep int) (lines []string, total int) {
	content = strings.TrimRight(ansi.Strip(content), " \t\r\n")
	if content == "" {
		return nil, 0
	}
	total = strings.Count(content, "\n") + 1
	lines = make([]string, 0, min(total, keep))
	for l := range strings.SplitSeq(content, "\n") {
		if len(lines) == keep {
			break
		}
		l = plainLine(l)
		if total > keep {
			l = strings.Clone(l) // let the long content go
		}
		lines = append(lines, l)
	}
	return lines, total
}

// wrapText wraps plain text to w cells per line, at spaces where it can and
// inside words where it must; line breaks in s are kept.
func wrapText(s string, w int) []string {
	var out []string
	for l := range strings.SplitSeq(ansi.Strip(s), "\n") {
		l = plainLine(l)
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, w, ""), "\n")...)
	}
	return out
}

// joinWrapped joins segments with sep, starting a new line before a segment
// that would pass w cells. A segment wider than w is cut.
func joinWrapped(segs []string, sep string, w int) []string {
	var lines []string
	cur, curW := "", 0
	for _, s := range segs {
		sw := ansi.StringWidth(s)
		switch {
		case curW == 0:
			cur, curW = s, sw
		case curW+ansi.StringWidth(sep)+sw <= w:
			cur += sep + s
			curW += ansi.StringWidth(sep) + sw
		default:
			lines = append(lines, cur)
			cur, curW = s, sw
		}
	}
	if curW > 0 {
		lines = append(lines, cur)
	}
	return fitWidth(lines, w)
}

// restyle drops the cached rendering (the styles changed).
func (n *noteItem) restyle() { n.cacheWidth = -1 }

// restyle drops the cached rendering (the styles changed).
func (e *errorItem) restyle() { e.cacheWidth = -1 }
