// Package markdown renders an assistant's markdown answer for the terminal
// with glamour, incrementally while it streams in.
//
// The text is split into blocks at blank lines that cannot change how the
// text before them renders (see the boundary rules on scanBlock in
// split.go). Each block is rendered by glamour on its own and the outputs are
// joined; Renderer.Render does that from scratch, Stream does it once per
// finished block and re-renders only the unfinished tail.
//
// Joined output matches glamour's rendering of the whole document (same
// blank lines between blocks, same padding) with these differences:
//   - leading and trailing blank lines of the message are dropped, and there
//     is no document margin (the caller's pane supplies its own);
//   - a link reference definition ([x]: url) applies to other blocks only
//     once the block holding it is finished (or the message is), and only
//     one-line definitions outside containers are recognised;
//   - a block made only of link reference definitions still counts as a
//     block for spacing, so the block after it gets the blank line glamour
//     puts between siblings;
//   - the styling escape codes of the padding after a code block may be
//     arranged differently, and glamour's padding cells (each a space in its
//     own colour) are rewritten as plain spaces after a reset: the visible
//     text is the same and the output several times smaller;
//   - code is highlighted in 24-bit colour (chroma's 256-colour formatter is
//     not deterministic); the TUI's output downsamples it;
//   - tabs in code blocks are expanded to spaces at 8-column tab stops
//     counted from the start of the code line (glamour passes them through,
//     and a terminal screen drawn cell by cell shows them as nothing); see
//     expandCodeTabs.
package markdown

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/parser"
)

// Style is the glamour style sheet: the caller picks it from the terminal's
// background.
type Style int

const (
	// Dark is glamour's "dark" style, for dark backgrounds.
	Dark Style = iota
	// Light is glamour's "light" style, for light backgrounds.
	Light
)

// MinWidth is the narrowest width, in columns, that Render honours; smaller
// widths render at MinWidth.
const MinWidth = 10

// maxTerms bounds the glamour renderers kept per Renderer (one per width).
const maxTerms = 4

// sentinel is an HTML comment glamour renders as nothing: put before a block
// it makes the block's first node a non-first sibling, so glamour gives it
// the blank line it has inside a whole document.
const sentinel = "<!---->\n\n"

// Renderer renders markdown with one glamour style. It keeps one glamour
// TermRenderer per width (building one costs tens of microseconds and many
// allocations; see BenchmarkNewTermRenderer), at most four widths, dropping
// the oldest. A Renderer is safe for concurrent use; renders are serialised.
// Many Streams may share one Renderer.
type Renderer struct {
	style Style
	code  parser.Parser // finds code blocks for expandCodeTabs

	mu    sync.Mutex
	terms map[int]*glamour.TermRenderer
	order []int // widths in terms, oldest first
}

// NewRenderer returns a Renderer for style.
func NewRenderer(style Style) *Renderer {
	return &Renderer{style: style, terms: make(map[int]*glamour.TermRenderer), code: newCodeParser()}
}

// Style returns the style the Renderer was made with.
func (r *Renderer) Style() Style { return r.style }

// Render renders text, a complete message, at width columns from scratch:
// the "full rendering" that a Stream's incremental output equals. Lines are
// at most width columns wide (code lines and tables excepted, as in glamour)
// and padded with spaces by glamour; the result has no trailing newline.
func (r *Renderer) Render(text string, width int) string {
	return r.render(text, width, true)
}

// render renders text from scratch. When done is false the text is a message
// still streaming, whose tail's link definitions do not yet apply to the
// finished blocks (as in an unfinished Stream).
func (r *Renderer) render(text string, width int, done bool) string {
	return assemble(text, clampWidth(width), done, r.renderBlock)
}

// blockFunc renders one block; see Renderer.renderBlock.
type blockFunc func(src string, width int, first, finished bool, defs string) string

// assemble splits text into blocks, renders each with block and joins them.
func assemble(text string, width int, done bool, block blockFunc) string {
	cuts, defs, tailDefs := splitBlocks(text)
	if done {
		defs += tailDefs
	}
	var j joiner
	start := 0
	for i, end := range cuts {
		j.add(block(text[start:end], width, i == 0, true, defs))
		start = end
	}
	tail := block(text[start:], width, len(cuts) == 0, false, defs)
	return finish(string(j.buf) + j.seam(tail))
}

// renderBlock renders one block. first tells whether it is the first block
// of the message; finished whether it is followed by a boundary (so text may
// safely be appended to it); defs are link definition lines to apply.
func (r *Renderer) renderBlock(src string, width int, first, finished bool, defs string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	src = r.expandCodeTabs(src)
	in := src
	switch {
	case !first && defs != "":
		in = sentinel + defs + "\n" + src
	case !first:
		in = sentinel + src
	case finished && defs != "":
		// Definitions before the first block would make it a non-first
		// sibling; after a finished block they change nothing else.
		in = src + "\n\n" + defs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out, err := r.term(width).Render(in)
	if err != nil {
		return src
	}
	return compactPadding(out)
}

// paddingCell is the start of one of glamour's padding cells: a space in
// a 256-colour foreground, then a reset ("\x1b[38;5;Nm \x1b[m", N of 1-3
// digits; 15 bytes a cell).
const paddingCell = "\x1b[38;5;"

// compactPadding rewrites runs of padding cells as one reset and plain
// spaces, which looks the same (a space shows no foreground colour) and
// makes the output several times smaller. It scans for the cells by hand
// (it runs on every block rendered, and a regular expression cost about
// 4% of the interface's CPU on a long stream); paddingRun in the tests is
// the same rule as a regular expression.
func compactPadding(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b (when b is in use)
	for i := 0; ; {
		j := strings.Index(s[i:], paddingCell)
		if j < 0 {
			break
		}
		start := i + j
		end, cells := start, 0
		for {
			n := paddingCellLen(s[end:])
			if n == 0 {
				break
			}
			end, cells = end+n, cells+1
		}
		if cells == 0 {
			i = start + len(paddingCell)
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:start])
		b.WriteString("\x1b[m")
		b.WriteString(strings.Repeat(" ", cells))
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// paddingCellLen returns the length of the padding cell at the start of s,
// 0 when s does not start with one.
func paddingCellLen(s string) int {
	if !strings.HasPrefix(s, paddingCell) {
		return 0
	}
	i := len(paddingCell)
	digits := 0
	for i < len(s) && digits < 3 && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if digits == 0 || !strings.HasPrefix(s[i:], "m \x1b[m") {
		return 0
	}
	return i + len("m \x1b[m")
}

// term returns the glamour renderer for width; r.mu must be held.
func (r *Renderer) term(width int) *glamour.TermRenderer {
	if tr, ok := r.terms[width]; ok {
		return tr
	}
	if len(r.order) >= maxTerms {
		delete(r.terms, r.order[0])
		r.order = r.order[1:]
	}
	tr, err := glamour.NewTermRenderer(glamour.WithStyles(styleConfig(r.style)), glamour.WithWordWrap(width),
		// chroma's 256-colour formatter breaks ties between palette entries
		// in map order, so the same code could get different colours from
		// one render to the next; 24-bit colour is exact (the TUI's output
		// downsamples it for terminals with fewer colours).
		glamour.WithChromaFormatter("terminal16m"))
	if err != nil {
		// Only a bad option fails, and the options here are fixed.
		panic("markdown: building glamour renderer: " + err.Error())
	}
	r.terms[width] = tr
	r.order = append(r.order, width)
	return tr
}

// styleConfig returns glamour's style for s without the document margin and
// the blank lines glamour puts around a document.
func styleConfig(s Style) ansi.StyleConfig {
	name := styles.DarkStyle
	if s == Light {
		name = styles.LightStyle
	}
	cfg := *styles.DefaultStyles[name]
	var zero uint
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	return cfg
}

func clampWidth(w int) int {
	return max(w, MinWidth)
}

// joiner concatenates rendered blocks the way glamour concatenates them in a
// whole document.
type joiner struct {
	buf   []byte
	cells int // width in cells of buf's unterminated last line
}

// seam returns out adjusted to follow j.buf: glamour leaves the last line of
// a code block unterminated and, in a whole document, pads the next block's
// leading blank line only up to the width, so that many cells of padding are
// dropped here.
func (j *joiner) seam(out string) string {
	if j.cells == 0 || out == "" {
		return out
	}
	first, rest, ok := strings.Cut(out, "\n")
	if !ok || strings.TrimSpace(xansi.Strip(first)) != "" {
		return out
	}
	return xansi.TruncateLeft(first, j.cells, "") + "\n" + rest
}

// add appends a rendered block.
func (j *joiner) add(out string) {
	out = j.seam(out)
	j.buf = append(j.buf, out...)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		j.cells = xansi.StringWidth(out[i+1:])
	} else {
		j.cells += xansi.StringWidth(out)
	}
}

// finish drops the leading and trailing blank lines (lines of spaces and
// escape codes) of a rendered message.
func finish(s string) string {
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(xansi.Strip(line)) != "" {
			break
		}
		s = rest
	}
	for {
		i := strings.LastIndexByte(s, '\n')
		if strings.TrimSpace(xansi.Strip(s[i+1:])) != "" {
			break
		}
		if i < 0 {
			return ""
		}
		s = s[:i]
	}
	return s
}
