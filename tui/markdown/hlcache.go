package markdown

import (
	"strings"
	"sync"
)

// hlChunk is how many lines of a code block are highlighted together. A
// longer block is highlighted in pieces of hlChunk lines, each lexed from
// the language's start state and kept in the Renderer's cache, so a code
// block that grows while it streams costs one piece a frame, not the whole
// block. The price: a construct that spans a piece's first line (a block
// comment, a multi-line string) is coloured from there on as if it began
// there. The pieces depend only on the text, so a Stream still equals
// Render.
const hlChunk = 64

// hlCacheMax bounds the pieces a Renderer keeps (each at most hlChunk
// highlighted lines); when full, the cache is emptied.
const hlCacheMax = 512

// hlCache keeps highlighted pieces of long code blocks by language, colour
// scheme and text. It is safe for concurrent use.
type hlCache struct {
	mu     sync.Mutex
	pieces map[string][]string
}

// lines highlights the lines of a code block in lang (see highlightCode);
// ok is false when any piece cannot be highlighted.
func (c *hlCache) lines(src []string, lang string, dark bool) ([]string, bool) {
	if len(src) <= hlChunk {
		return highlightCode(strings.Join(src, "\n"), lang, dark)
	}
	out := make([]string, 0, len(src))
	for start := 0; start < len(src); start += hlChunk {
		piece := src[start:min(start+hlChunk, len(src))]
		text := strings.Join(piece, "\n")
		key := lang + "\x00" + boolKey(dark) + text
		c.mu.Lock()
		hl, found := c.pieces[key]
		c.mu.Unlock()
		if !found {
			var ok bool
			hl, ok = highlightCode(text, lang, dark)
			if !ok || len(hl) != len(piece) {
				return nil, false
			}
			c.mu.Lock()
			if c.pieces == nil || len(c.pieces) >= hlCacheMax {
				c.pieces = make(map[string][]string)
			}
			c.pieces[key] = hl
			c.mu.Unlock()
		}
		out = append(out, hl...)
	}
	return out, true
}

func boolKey(b bool) string {
	if b {
		return "d"
	}
	return "l"
}
