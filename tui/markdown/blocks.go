package markdown

import (
	"strconv"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// drawer draws the nodes of one parsed block as lines of at most a given
// width (code and tables too: long code lines are cut, table cells wrap).
type drawer struct {
	src []byte
	pal *palette
	hl  *hlCache
}

// blocks draws n's block children, one blank line between two that show
// something when loose, none when tight (the paragraphs of a tight list).
func (d *drawer) blocks(n ast.Node, width int, loose bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := d.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && loose {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// block draws one block node.
func (d *drawer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return wrapRuns(d.inlines(n, plain), width)
	case *ast.Heading:
		return d.heading(n, width)
	case *ast.ThematicBreak:
		return []string{paint(strings.Repeat("─", min(width, 8)), d.pal.rule)}
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang, _, _ = strings.Cut(strings.TrimSpace(sanitize(string(n.Info.Segment.Value(d.src)))), " ")
		}
		return d.code(n.Lines(), lang, width)
	case *ast.CodeBlock:
		return d.code(n.Lines(), "", width)
	case *ast.Blockquote:
		if width-2 < minInner {
			return d.blocks(n, width, true)
		}
		bar := paint("│", d.pal.quote)
		lines := d.blocks(n, width-2, true)
		for i, l := range lines {
			if l == "" {
				lines[i] = bar
			} else {
				lines[i] = bar + " " + l
			}
		}
		return lines
	case *ast.List:
		return d.list(n, width)
	case *ast.HTMLBlock:
		return d.html(n, width)
	case *east.Table:
		return d.table(n, width)
	case *east.DefinitionList:
		return d.blocks(n, width, false)
	case *east.DefinitionTerm:
		return wrapRuns(d.inlines(n, attrs{fg: -1, bg: -1, bold: true}), width)
	case *east.DefinitionDescription:
		if width-2 < minInner {
			return d.blocks(n, width, true)
		}
		return indent(d.blocks(n, width-2, true), "→ ", "  ")
	}
	// A node this drawer does not know (an extension's): its text.
	if n.Type() == ast.TypeBlock && n.HasChildren() && n.FirstChild().Type() == ast.TypeInline {
		return wrapRuns(d.inlines(n, plain), width)
	}
	return d.blocks(n, width, true)
}

// indent puts first before the first line and rest before the others
// (blank lines stay blank).
func indent(lines []string, first, rest string) []string {
	for i, l := range lines {
		switch {
		case i == 0:
			lines[i] = first + l
		case l != "":
			lines[i] = rest + l
		}
	}
	return lines
}

// heading draws a heading as glamour did: "## " prefixes from level two,
// the first level on a coloured band.
func (d *drawer) heading(n *ast.Heading, width int) []string {
	base := d.pal.heading
	prefix := strings.Repeat("#", n.Level) + " "
	switch n.Level {
	case 1:
		base, prefix = d.pal.h1, "\u00a0" // a band: a space that does not wrap away
	case 6:
		base = d.pal.h6
	}
	runs := append([]run{{prefix, base}}, d.inlines(n, base)...)
	if n.Level == 1 {
		runs = append(runs, run{"\u00a0", base})
	}
	return wrapRuns(runs, width)
}

// minInner is the narrowest a container's content is drawn: a list item or
// a quote narrower than that puts its marker on a line of its own, or
// drops its bar, rather than draw past the width.
const minInner = 4

// list draws a list's items with their bullets or numbers (a task item
// with its box instead of a bullet), a blank line between the items of a
// loose list.
func (d *drawer) list(n *ast.List, width int) []string {
	count := n.ChildCount()
	markW := 2 // "• "
	if n.IsOrdered() {
		markW = len(strconv.Itoa(n.Start+count-1)) + 2
	}
	loose := !n.IsTight
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		mark, w := "• ", markW
		if n.IsOrdered() {
			num := strconv.Itoa(n.Start + i)
			mark = strings.Repeat(" ", markW-len(num)-2) + num + ". "
		}
		if box, ok := taskBox(item); ok {
			mark, w = box, 4
		}
		i++
		if loose && len(out) > 0 {
			out = append(out, "")
		}
		marker := paint(mark, d.pal.marker)
		if width-w < minInner {
			out = append(out, strings.TrimRight(marker, " "))
			out = append(out, d.blocks(item, width, loose)...)
			continue
		}
		lines := d.blocks(item, width-w, loose)
		if len(lines) == 0 {
			lines = []string{""}
		}
		out = append(out, indent(lines, marker, strings.Repeat(" ", w))...)
	}
	return out
}

// taskBox returns the box a task list item starts with ("[ ] " or "[✓] "),
// ok false when item is no task.
func taskBox(item ast.Node) (string, bool) {
	first := item.FirstChild()
	if first == nil {
		return "", false
	}
	box, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok {
		return "", false
	}
	if box.IsChecked {
		return "[✓] ", true
	}
	return "[ ] ", true
}

// html draws an HTML block as written, dimmed; a comment shows nothing.
func (d *drawer) html(n *ast.HTMLBlock, width int) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimRight(s, "\n")
		out = append(out, wrapRuns([]run{{s, d.pal.html}}, width)...)
	}
	var raw strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		raw.Write(seg.Value(d.src))
	}
	if n.HasClosure() {
		raw.Write(n.ClosureLine.Value(d.src))
	}
	text := raw.String()
	if n.HTMLBlockType == ast.HTMLBlockType2 {
		// A comment shows nothing; text after its end on the same line
		// shows (a browser would show it).
		i := strings.LastIndex(text, "-->")
		if i < 0 {
			return nil
		}
		text = strings.TrimSpace(text[i+len("-->"):])
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		add(sanitize(l))
	}
	return out
}

// inlines returns the runs of n's inline children drawn over base.
func (d *drawer) inlines(n ast.Node, base attrs) []run {
	var runs []run
	d.inline(n, base, &runs)
	return runs
}

// inline appends to runs the runs of n's inline children drawn over a:
// text, code spans, emphasis, links and images each with their style.
func (d *drawer) inline(n ast.Node, a attrs, runs *[]run) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(d.src)
			if !c.IsRaw() {
				v = unescape(v)
			}
			*runs = append(*runs, run{sanitize(string(v)), a})
			switch {
			case c.HardLineBreak():
				*runs = append(*runs, run{"\n", a})
			case c.SoftLineBreak():
				*runs = append(*runs, run{" ", a})
			}
		case *ast.String:
			v := c.Value
			if !c.IsRaw() {
				v = unescape(v)
			}
			*runs = append(*runs, run{sanitize(string(v)), a})
		case *ast.CodeSpan:
			*runs = append(*runs, d.codeSpan(c, a))
		case *ast.Emphasis:
			e := a
			if c.Level >= 2 {
				e.bold = true
			} else {
				e.italic = true
			}
			d.inline(c, e, runs)
		case *east.Strikethrough:
			s := a
			s.strike = true
			d.inline(c, s, runs)
		case *ast.Link:
			d.link(c, a, runs)
		case *ast.AutoLink:
			*runs = append(*runs, run{sanitize(string(c.URL(d.src))), merge(a, d.pal.linkURL)})
		case *ast.Image:
			d.image(c, a, runs)
		case *ast.RawHTML:
			*runs = append(*runs, d.rawHTML(c, a))
		case *east.TaskCheckBox:
			// Drawn by list as the item's marker.
		default:
			d.inline(c, a, runs)
		}
	}
}

// codeSpan is code span c drawn over a in the code style, a no-break
// space on each side.
func (d *drawer) codeSpan(c *ast.CodeSpan, a attrs) run {
	var b strings.Builder
	for t := c.FirstChild(); t != nil; t = t.NextSibling() {
		switch t := t.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(d.src))
		case *ast.String:
			b.Write(t.Value)
		}
	}
	code := merge(a, d.pal.code)
	return run{"\u00a0" + sanitize(b.String()) + "\u00a0", code}
}

// link appends to runs link c's text and, after a space, its URL when
// that is not the text itself.
func (d *drawer) link(c *ast.Link, a attrs, runs *[]run) {
	before := len(*runs)
	d.inline(c, merge(a, d.pal.linkText), runs)
	url := sanitize(string(unescape(c.Destination)))
	if url != "" && url != plainText((*runs)[before:]) {
		*runs = append(*runs, run{" ", a}, run{url, merge(a, d.pal.linkURL)})
	}
}

// image appends to runs image c as text: "Image: alt →" (or "Image:"
// without alt text), a space and its URL.
func (d *drawer) image(c *ast.Image, a attrs, runs *[]run) {
	label := "Image:"
	if alt := strings.TrimSpace(plainText(d.inlines(c, plain))); alt != "" {
		label = "Image: " + alt + " →"
	}
	*runs = append(*runs, run{label, merge(a, d.pal.imageText)},
		run{" ", a}, run{sanitize(string(unescape(c.Destination))), merge(a, d.pal.image)})
}

// rawHTML is inline HTML c drawn as its source in the HTML style.
func (d *drawer) rawHTML(c *ast.RawHTML, a attrs) run {
	var b strings.Builder
	for i := 0; i < c.Segments.Len(); i++ {
		seg := c.Segments.At(i)
		b.Write(seg.Value(d.src))
	}
	return run{sanitize(b.String()), merge(a, d.pal.html)}
}

// merge draws over with over's colours where it has them and the
// attributes of both.
func merge(under, over attrs) attrs {
	m := under
	if over.fg >= 0 {
		m.fg = over.fg
	}
	if over.bg >= 0 {
		m.bg = over.bg
	}
	m.bold = m.bold || over.bold
	m.italic = m.italic || over.italic
	m.underline = m.underline || over.underline
	m.strike = m.strike || over.strike
	return m
}

// plainText is the text of runs without their styles.
func plainText(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(r.text)
	}
	return b.String()
}

// unescape resolves backslash escapes and character references in text,
// as an HTML renderer would (CommonMark 0.31, sections 2.4 and 2.5).
func unescape(v []byte) []byte {
	if len(v) == 0 {
		return v
	}
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	return util.ResolveEntityNames(v)
}

// sanitize makes untrusted text safe to draw (see highlight.Clean); a
// tab becomes a space (code's tabs are expanded before).
func sanitize(s string) string {
	s = highlight.Clean(s)
	if strings.IndexByte(s, '\t') >= 0 {
		s = strings.ReplaceAll(s, "\t", " ")
	}
	return s
}

// cellWidth is the width of a painted line in cells.
func cellWidth(line string) int { return xansi.StringWidth(line) }
