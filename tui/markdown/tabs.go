package markdown

import (
	"sort"
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// tabStop is the terminal's tab stop in columns: code keeps its
// indentation as the terminal would show the raw file.
const tabStop = 8

// newCodeParser returns a parser that reads markdown as glamour does (GFM
// and definition lists), to find the code blocks' lines. A goldmark parser
// is safe for concurrent use.
func newCodeParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()
}

// expandCodeTabs returns src with every tab inside the code of fenced and
// indented code blocks replaced by the spaces that reach the next tab stop,
// counted from the start of the code line (the column after the block's
// own indentation and any container's prefix). Glamour passes tabs through,
// and the terminal screen shows them as nothing, so code would lose its
// indentation. Tabs elsewhere (and in the indentation markdown consumes)
// are left alone; replacing them inside a code line's content changes no
// block structure, so the parse of the result has the same blocks.
func (r *Renderer) expandCodeTabs(src string) string {
	if strings.IndexByte(src, '\t') < 0 {
		return src
	}
	source := []byte(src)
	doc := r.code.Parse(text.NewReader(source))
	type span struct{ start, stop, col int } // a code line: bytes [start, stop), first column col
	var spans []span
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Kind() != ast.KindFencedCodeBlock && n.Kind() != ast.KindCodeBlock {
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			spans = append(spans, span{seg.Start, seg.Stop, seg.Padding})
		}
		return ast.WalkSkipChildren, nil
	})
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	b.Grow(len(src) + 64)
	pos := 0
	for _, sp := range spans {
		if sp.start < pos || strings.IndexByte(src[sp.start:sp.stop], '\t') < 0 {
			continue
		}
		b.WriteString(src[pos:sp.start])
		col := sp.col
		for _, c := range src[sp.start:sp.stop] {
			switch c {
			case '\t':
				n := tabStop - col%tabStop
				b.WriteString(strings.Repeat(" ", n))
				col += n
			case '\n', '\r':
				b.WriteRune(c)
				col = 0
			default:
				b.WriteRune(c)
				if c < 0x80 {
					col++
				} else {
					col += xansi.StringWidth(string(c))
				}
			}
		}
		pos = sp.stop
	}
	if pos == 0 {
		return src
	}
	b.WriteString(src[pos:])
	return b.String()
}
