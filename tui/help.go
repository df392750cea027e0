package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// helpColumnGap is the space between two columns of the full help.
const helpColumnGap = 4

// helpLines is the help under the status line: the one line of the keys
// that apply now, or, after ?, every key (fullHelpLines).
func (m *Model) helpLines() []string {
	if m.help.ShowAll {
		return fullHelpLines(m.help.Styles, m.keys.FullHelp(), m.width)
	}
	return fitWidth(strings.Split(m.help.ShortHelpView(m.keys.ShortHelp()), "\n"), m.width)
}

// helpColumn is one column of the full help: its keys and descriptions,
// the width of its keys and its whole width in cells.
type helpColumn struct {
	keys, descs []string
	keyW, w     int
}

// fullHelpLines lays out every key of groups, a column per group, in width
// cells: the columns that fit side by side, then the next ones in a band of
// their own under them (a blank line between bands), so that no key is cut
// (bubbles' help cuts the columns past the width). A tall group may be
// split into columns of fewer rows when that takes fewer rows in all. A
// column wider than width alone has its descriptions cut at the edge.
func fullHelpLines(st help.Styles, groups [][]key.Binding, width int) []string {
	var cols []helpColumn
	tallest := 0
	for _, g := range groups {
		var c helpColumn
		for _, b := range g {
			if b.Enabled() {
				c.keys = append(c.keys, b.Help().Key)
				c.descs = append(c.descs, b.Help().Desc)
			}
		}
		if len(c.keys) > 0 {
			cols = append(cols, c)
			tallest = max(tallest, len(c.keys))
		}
	}
	// Each split costs a row in the comparison: a group is kept whole
	// unless splitting it saves more rows than it makes columns.
	var best [][]helpColumn
	bestCost := 0
	for h := tallest; h >= min(tallest, 3); h-- {
		split := splitHelp(cols, h)
		bands := packHelp(split, width)
		cost := len(bands) - 1 + len(split) - len(cols)
		for _, b := range bands {
			cost += bandHeight(b)
		}
		if best == nil || cost < bestCost {
			best, bestCost = bands, cost
		}
	}
	var out []string
	for _, band := range best {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, renderHelpBand(st, band, width)...)
	}
	return out
}

// splitHelp splits each column taller than h rows into columns of about
// equal height, none taller than h, and measures them.
func splitHelp(cols []helpColumn, h int) []helpColumn {
	var out []helpColumn
	for _, c := range cols {
		parts := (len(c.keys) + h - 1) / h
		size := (len(c.keys) + parts - 1) / parts
		for i := 0; i < len(c.keys); i += size {
			end := min(i+size, len(c.keys))
			p := helpColumn{keys: c.keys[i:end], descs: c.descs[i:end]}
			for _, k := range p.keys {
				p.keyW = max(p.keyW, ansi.StringWidth(k))
			}
			for _, d := range p.descs {
				p.w = max(p.w, p.keyW+1+ansi.StringWidth(d))
			}
			out = append(out, p)
		}
	}
	return out
}

// packHelp puts the columns in bands: as many side by side as fit in
// width, one at the least.
func packHelp(cols []helpColumn, width int) [][]helpColumn {
	var bands [][]helpColumn
	for len(cols) > 0 {
		n, used := 1, cols[0].w
		for n < len(cols) && used+helpColumnGap+cols[n].w <= width {
			used += helpColumnGap + cols[n].w
			n++
		}
		bands = append(bands, cols[:n])
		cols = cols[n:]
	}
	return bands
}

func bandHeight(band []helpColumn) int {
	h := 0
	for _, c := range band {
		h = max(h, len(c.keys))
	}
	return h
}

// renderHelpBand draws a band's rows, each cut to width.
func renderHelpBand(st help.Styles, band []helpColumn, width int) []string {
	var out []string
	for r := range bandHeight(band) {
		var line strings.Builder
		end := 0 // the columns with a cell in this row end at end
		for i, c := range band {
			if r < len(c.keys) {
				end = i + 1
			}
		}
		for i, c := range band[:end] {
			last := i == end-1
			if i > 0 {
				line.WriteString(strings.Repeat(" ", helpColumnGap))
			}
			if r >= len(c.keys) {
				line.WriteString(strings.Repeat(" ", c.w))
				continue
			}
			k := c.keys[r] + strings.Repeat(" ", c.keyW-ansi.StringWidth(c.keys[r])+1)
			d := c.descs[r]
			if !last {
				d += strings.Repeat(" ", c.w-c.keyW-1-ansi.StringWidth(d))
			}
			line.WriteString(st.FullKey.Render(k) + st.FullDesc.Render(d))
		}
		out = append(out, ansi.Truncate(line.String(), width, "…"))
	}
	return out
}
