// Package markdown renders an assistant's markdown answer for the terminal,
// incrementally while it streams in.
//
// The text is parsed by goldmark (CommonMark 0.31 with the GitHub
// extensions: tables, strikethrough, task lists, autolinks; and definition
// lists) and drawn by this package as lines of styled text, in the look of
// glamour's dark and light styles. Code blocks are coloured by the
// highlight package, which builds a language's lexer only when a code block
// first names it: nothing of the highlighting is set up when the program
// starts.
//
// The text is split into blocks at blank lines that cannot change how the
// text before them renders (see the boundary rules on scanBlock in
// split.go). Each block is parsed and drawn on its own, and the drawn
// blocks are joined with one blank line between two that show something;
// Renderer.Render does that from scratch, Stream does it once per finished
// block and draws again only the unfinished tail. A link reference
// definition ([x]: url) applies to other blocks only once the block holding
// it is finished (or the message is), and only one-line definitions outside
// containers are recognised.
//
// What the model wrote is untrusted: control characters (escape sequences
// among them) are drawn as U+FFFD, never sent to the terminal.
package markdown

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// Style is the colour scheme: the caller picks it from the interface's
// theme (Dark or Light from the terminal's background). Each Style has its
// code colours (highlight.Scheme) too.
type Style int

const (
	// Dark is for dark backgrounds (glamour's "dark" colours).
	Dark Style = iota
	// Light is for light backgrounds (glamour's "light" colours).
	Light
	// Dracula is the Dracula theme's colours (draculatheme.com).
	Dracula
	// SolarizedDark is Solarized's colours on its dark background.
	SolarizedDark
	// SolarizedLight is Solarized's colours on its light background.
	SolarizedLight
	// HighContrast is bright ANSI colours for a dark background: every
	// element keeps a colour of its own on a 16-colour terminal.
	HighContrast
)

// MinWidth is the narrowest width, in columns, that Render honours; smaller
// widths render at MinWidth.
const MinWidth = 10

// Renderer renders markdown in one Style. It is safe for concurrent use,
// and many Streams may share one Renderer.
type Renderer struct {
	style  Style
	parser parser.Parser // safe for concurrent use
	hl     hlCache       // highlighted pieces of long code blocks
}

// NewRenderer returns a Renderer for style.
func NewRenderer(style Style) *Renderer {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))
	return &Renderer{style: style, parser: md.Parser(), hl: hlCache{budget: highlight.DefaultBudget()}}
}

// Style returns the style the Renderer was made with.
func (r *Renderer) Style() Style { return r.style }

// Render renders text, a complete message, at width columns from scratch:
// the "full rendering" that a Stream's incremental output equals. Lines
// are at most width cells wide, carry their own escape sequences (no style
// crosses a line) and are not padded; the result has no leading or
// trailing blank line and no trailing newline.
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
type blockFunc func(src string, width int, defs string) []string

// assemble splits text into blocks, renders each with block and joins them.
func assemble(text string, width int, done bool, block blockFunc) string {
	cuts, defs, tailDefs := splitBlocks(text)
	if done {
		defs += tailDefs
	}
	var j lineJoiner
	start := 0
	for _, end := range cuts {
		j.add(block(text[start:end], width, defs))
		start = end
	}
	return strings.Join(j.withTail(block(text[start:], width, defs)), "\n")
}

// renderBlock draws one block at width as lines, without leading or
// trailing blank lines (nil when it shows nothing). defs are link
// reference definition lines to apply: they go before the block, where
// they draw nothing.
func (r *Renderer) renderBlock(src string, width int, defs string) []string {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	if defs != "" {
		src = defs + "\n" + src
	}
	source := []byte(src)
	doc := r.parser.Parse(text.NewReader(source))
	d := drawer{src: source, pal: paletteOf(r.style), hl: &r.hl}
	lines := d.blocks(doc, width, true)
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	return lines
}

func clampWidth(w int) int {
	return max(w, MinWidth)
}
