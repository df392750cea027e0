package markdown

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// tableRow is a table's row: the runs of its cells.
type tableRow struct {
	cells  [][]run
	header bool
}

// table draws a GFM table: columns separated by " │ ", the header bold
// and underlined by a rule, each column as wide as its widest cell. When
// that is wider than width, the widest columns give up room (down to
// minColumn cells) and their cells wrap; when even that is too wide, the
// rows are drawn one cell a line (stackedTable).
func (d *drawer) table(n *east.Table, width int) []string {
	var rows []tableRow
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
		rows = append(rows, tableRow{cells, header})
	}
	if cols == 0 {
		return nil
	}
	// Each column's width with no cell wrapped: its widest cell's.
	natural := make([]int, cols)
	for _, r := range rows {
		for i, c := range r.cells {
			natural[i] = max(natural[i], cellWidth(strings.Join(wrapRuns(c, 1<<20), "")))
		}
	}
	widths, fits := fitColumns(natural, width-3*(cols-1))
	if !fits {
		if len(rows) == 1 {
			return d.stackedTable(nil, rows, width)
		}
		return d.stackedTable(rows[0].cells, rows[1:], width)
	}
	sep := paint(" │ ", d.pal.rule)
	var out []string
	for _, r := range rows {
		out = d.gridRow(out, r, widths, n.Alignments, sep)
	}
	return out
}

// gridRow appends to out the lines of row r with its cells wrapped to the
// columns' widths, aligned as aligns says (a missing cell is empty, a
// missing alignment none) and separated by sep; a header row is underlined
// by a rule.
func (d *drawer) gridRow(out []string, r tableRow, widths []int, aligns []east.Alignment, sep string) []string {
	cols := len(widths)
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
			if i < len(aligns) {
				align = aligns[i]
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
	return out
}

// minColumn is the narrowest a table column is drawn: any character fits.
const minColumn = 2

// fitColumns returns column widths for cells of the natural widths in room
// cells: the natural widths when they fit, else the widest columns cut
// down to no less than minColumn; fits is false when even that is too
// wide.
func fitColumns(natural []int, room int) (widths []int, fits bool) {
	widths = make([]int, len(natural))
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
		if widths[widest] <= minColumn {
			return widths, false
		}
		widths[widest]--
		total--
	}
	return widths, true
}

// stackedTable draws a table too wide for the width as its rows one after
// the other, each cell on its own line after its column's header, a blank
// line between rows.
func (d *drawer) stackedTable(header [][]run, body []tableRow, width int) []string {
	var out []string
	for _, r := range body {
		if len(out) > 0 {
			out = append(out, "")
		}
		for i, c := range r.cells {
			var label []run
			if i < len(header) {
				label = append(label, header[i]...)
				label = append(label, run{":", attrs{fg: -1, bg: -1, bold: true}}, run{" ", plain})
			}
			out = append(out, wrapRuns(append(label, c...), width)...)
		}
	}
	return out
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
