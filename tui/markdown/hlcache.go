package markdown

import (
	"strings"
	"sync"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// hlChunk is how many lines of a code block are highlighted together. A
// longer block is highlighted in pieces of hlChunk lines, each lexed from
// the language's start state, and each full piece is kept in the
// Renderer's cache, so a code block that grows while it streams costs its
// last piece a frame, not the whole block. The price: a construct that
// spans a piece's first line (a block comment, a multi-line string) is
// coloured from there on as if it began there. The pieces depend only on
// the text, so a Stream still equals Render.
const hlChunk = 64

// hlCacheMax bounds the bytes of highlighted pieces a Renderer keeps; when
// a piece would pass it, the cache is emptied first.
const hlCacheMax = 4 << 20

// failPrefix is how much of a piece's text names it among the pieces that
// could not be highlighted: a piece that grows while it streams keeps its
// start, so a lexer that gave up on it (its time budget ran out, or it
// failed) is not tried again at every frame.
const failPrefix = 512

// hlCache keeps highlighted pieces of code blocks by language, colour
// scheme and text, and the starts of the pieces that could not be
// highlighted. It is safe for concurrent use.
type hlCache struct {
	// budget bounds the lexing of one piece (highlight.DefaultBudget in
	// the interface; a test sets a clock of its own).
	budget highlight.Budget
	mu     sync.Mutex
	pieces map[string][]string
	bytes  int
	failed map[string]bool
}

// lines highlights the lines of a code block in lang (see
// highlight.LinesWithin), piece by piece; ok is false when lang is unknown.
// A piece that cannot be highlighted (its lexer failed, or ran out of its
// time budget) is plain, and the others are still coloured.
func (c *hlCache) lines(src []string, lang string, scheme highlight.Scheme) ([]string, bool) {
	if !highlight.Knows(lang) {
		return nil, false
	}
	out := make([]string, 0, len(src))
	for start := 0; start < len(src); start += hlChunk {
		piece := src[start:min(start+hlChunk, len(src))]
		out = append(out, c.piece(piece, lang, scheme)...)
	}
	return out, true
}

// piece highlights one piece of a code block, or returns it plain.
func (c *hlCache) piece(piece []string, lang string, scheme highlight.Scheme) []string {
	text := strings.Join(piece, "\n")
	key := lang + "\x00" + string(rune('0'+scheme)) + text
	failKey := key[:min(len(key), len(lang)+2+failPrefix)]
	c.mu.Lock()
	hl, found := c.pieces[key]
	failed := c.failed[failKey]
	c.mu.Unlock()
	if found {
		return hl
	}
	if failed {
		return piece
	}
	hl, ok := highlight.LinesWithin(text, lang, scheme, c.budget)
	if !ok || len(hl) != len(piece) {
		c.mu.Lock()
		if c.failed == nil || len(c.failed) >= 256 {
			c.failed = make(map[string]bool)
		}
		c.failed[failKey] = true
		c.mu.Unlock()
		return piece
	}
	if len(piece) == hlChunk {
		c.keep(key, hl)
	}
	return hl
}

// keep caches a highlighted full piece.
func (c *hlCache) keep(key string, hl []string) {
	size := len(key)
	for _, l := range hl {
		size += len(l)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pieces == nil || c.bytes+size > hlCacheMax {
		c.pieces, c.bytes = make(map[string][]string), 0
	}
	c.pieces[key] = hl
	c.bytes += size
}
