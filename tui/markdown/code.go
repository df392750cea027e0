package markdown

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/text"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// tabStop is the terminal's tab stop in columns: code keeps its
// indentation as the terminal would show the raw file.
const tabStop = 8

// codeMargin is the indentation of a code block, as glamour's.
const codeMargin = "  "

// code draws the lines of a code block: indented by codeMargin, tabs
// expanded to 8-column stops counted from the start of the code line,
// highlighted when lang names a known language, and cut into pieces of the
// width when longer (nothing of the code is lost off the screen's edge).
func (d *drawer) code(segs *text.Segments, lang string, width int) []string {
	src := make([]string, segs.Len())
	for i := range src {
		seg := segs.At(i)
		line := strings.TrimRight(string(seg.Value(d.src)), "\n")
		line = strings.Repeat(" ", seg.Padding) + line
		src[i] = expandTabs(highlight.Clean(line)) // cleaned first, so a tab stop counts what is drawn
	}
	for len(src) > 0 && strings.TrimSpace(src[len(src)-1]) == "" {
		src = src[:len(src)-1]
	}
	if len(src) == 0 {
		return nil
	}
	lines := src
	if lang != "" {
		if hl, ok := d.hl.lines(src, lang, d.pal.hl); ok && len(hl) == len(src) {
			lines = hl
		}
	}
	room := max(width-len(codeMargin), 1)
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		w := textWidth(src[i]) // the plain line: highlighting adds only escape sequences
		if w == 0 {
			out = append(out, "")
			continue
		}
		if w <= room {
			out = append(out, codeMargin+l)
			continue
		}
		for _, piece := range cutStyled(l, room) {
			out = append(out, codeMargin+piece)
		}
	}
	return out
}

// expandTabs replaces each tab of a code line with the spaces that reach
// the next tab stop (the terminal would show a tab as nothing once the
// screen is drawn cell by cell).
func expandTabs(line string) string {
	if strings.IndexByte(line, '\t') < 0 {
		return line
	}
	var b strings.Builder
	col := 0
	for _, c := range line {
		if c == '\t' {
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		if c < 0x80 {
			col++
		} else {
			col += xansi.StringWidth(string(c))
		}
	}
	return b.String()
}

// cutStyled cuts a line of text and SGR sequences (as highlight.Lines
// writes them) into pieces of at most room cells, in one pass. A piece
// ends with a reset when a style is open at its end, and the next piece
// opens that style again, so each piece draws alone. A character wider
// than room gets a piece of its own.
func cutStyled(line string, room int) []string {
	var (
		pieces []string
		b      strings.Builder
		style  string // the SGR sequence in force, "" after a reset
		w      int
	)
	end := func() {
		if style != "" {
			b.WriteString(reset)
		}
		pieces = append(pieces, b.String())
		b.Reset()
		b.WriteString(style)
		w = 0
	}
	for i := 0; i < len(line); {
		if line[i] == '\x1b' {
			j := strings.IndexByte(line[i:], 'm')
			if j < 0 {
				break // not ours: highlight writes only SGR sequences
			}
			seq := line[i : i+j+1]
			b.WriteString(seq)
			if seq == reset || seq == "\x1b[0m" {
				style = ""
			} else {
				style = seq
			}
			i += j + 1
			continue
		}
		cluster, cw := xansi.FirstGraphemeCluster(line[i:], xansi.GraphemeWidth)
		if cluster == "" {
			break
		}
		if w > 0 && w+cw > room {
			end()
		}
		b.WriteString(cluster)
		w += cw
		i += len(cluster)
	}
	if w > 0 {
		last := b.String()
		if style != "" && !strings.HasSuffix(last, reset) {
			last += reset
		}
		pieces = append(pieces, last)
	}
	return pieces
}
