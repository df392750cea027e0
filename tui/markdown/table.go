package markdown

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// table draws a GFM table: columns separated by " │ ", the header bold
// and underlined by a rule, each column as wide as its widest cell. When
// that is wider than width, the widest columns give up room (down to 3
// cells each, as far as that goes) and their cells wrap.
func (d *drawer) table(n *east.Table, width int) []string {
	type row struct {
		cells  [][]run
		header bool
	}
	var rows []row
	cols := len(n.Alignments)
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		var cells [][]run
		header := r.Kind() == east.KindTableHeader
		base := plain
		if header {
			base.bold = true
		}
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, d.inlines(c, base))
		}
		cols = max(cols, len(cells))
		rows = append(rows, row{cells, header})
	}
	if cols == 0 {
		return nil
	}
	natural := make([]int, cols)
	for _, r := range rows {
		for i, c := range r.cells {
			natural[i] = max(natural[i], cellWidth(strings.Join(wrapRuns(c, 1<<20), "")))
		}
	}
	widths := fitColumns(natural, width-3*(cols-1))
	sep := paint(" │ ", d.pal.rule)
	var out []string
	for _, r := range rows {
		wrapped := make([][]string, cols)
		height := 1
		for i := range cols {
			var c []run
			if i < len(r.cells) {
				c = r.cells[i]
			}
			wrapped[i] = wrapRuns(c, widths[i])
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			parts := make([]string, cols)
			for i := range cols {
				cell := ""
				if l < len(wrapped[i]) {
					cell = wrapped[i][l]
				}
				align := east.AlignNone
				if i < len(n.Alignments) {
					align = n.Alignments[i]
				}
				parts[i] = alignCell(cell, widths[i], align, i == cols-1)
			}
			out = append(out, strings.TrimRight(strings.Join(parts, sep), " "))
		}
		if r.header {
			rules := make([]string, cols)
			for i, w := range widths {
				rules[i] = strings.Repeat("─", w)
			}
			out = append(out, paint(strings.Join(rules, "─┼─"), d.pal.rule))
		}
	}
	return out
}

// fitColumns returns column widths for cells of the natural widths in room
// cells: the natural widths when they fit, else the widest columns cut
// down (no column below 3 cells, or its natural width when smaller).
func fitColumns(natural []int, room int) []int {
	widths := make([]int, len(natural))
	total := 0
	for i, w := range natural {
		widths[i] = max(w, 1)
		total += widths[i]
	}
	for total > room {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= 3 {
			break
		}
		widths[widest]--
		total--
	}
	return widths
}

// alignCell pads a drawn cell to width cells as align says; the last
// column's cell is not padded on the right.
func alignCell(cell string, width int, align east.Alignment, last bool) string {
	gap := width - cellWidth(cell)
	if gap <= 0 {
		return cell
	}
	switch align {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + cell
	case east.AlignCenter:
		left := gap / 2
		cell = strings.Repeat(" ", left) + cell
		gap -= left
	}
	if last {
		return cell
	}
	return cell + strings.Repeat(" ", gap)
}
