package markdown

import "strings"

// Stream is one assistant message arriving as text deltas, rendered
// incrementally. It keeps the rendering of the finished blocks of the
// message (see scanBlock for when a block is finished) as lines and, on
// each Lines or Render, renders only the unfinished tail, so the work per
// delta depends on the size of the tail, not on the length of the message:
// only the tail block is parsed and drawn, and the finished lines are
// neither copied nor looked at again.
//
// The cache is dropped, and every block rendered again, when the width
// changes, when the set of link reference definitions in finished blocks
// changes (rare; one full render per new definition) and on Reset. An
// unchanged Stream rendered again at the same width returns the previous
// result without rendering.
//
// Render(w) always equals a from-scratch rendering of Text() at w: once the
// Stream is finished, exactly Renderer.Render(Text(), w); before that, the
// same except that link definitions in the unfinished tail do not yet apply
// to finished blocks. Lines(w) is the same rendering split into lines. A
// Stream is not safe for concurrent use.
type Stream struct {
	r    *Renderer
	text []byte
	done bool

	cuts []int  // byte offsets in text where finished blocks end
	defs string // link definitions of the finished blocks

	// Render cache, valid for width and usedDefs.
	width    int
	usedDefs string
	joined   lineJoiner // the rendered finished blocks
	rendered int        // how many finished blocks joined holds
	lines    []string   // the last result of Lines
	fresh    bool       // lines is the rendering of the current text
	last     string     // the last result of Render, when fresh
	joinedOK bool       // last is lines joined
}

// NewStream returns an empty Stream that renders with r.
func NewStream(r *Renderer) *Stream {
	return &Stream{r: r}
}

// Append adds delta (any bytes; a UTF-8 sequence may be split across
// deltas) to the message. Appending to a finished Stream reopens it.
func (s *Stream) Append(delta string) {
	if delta == "" {
		return
	}
	s.text = append(s.text, delta...)
	s.done = false
	s.fresh = false
}

// Finish marks the message complete: its tail is final, and link
// definitions in the tail now apply to the whole message.
func (s *Stream) Finish() {
	if !s.done {
		s.done = true
		s.fresh = false
	}
}

// Done reports whether Finish was called since the last Append or Reset.
func (s *Stream) Done() bool { return s.done }

// Text returns a copy of the message text received so far.
func (s *Stream) Text() string { return string(s.text) }

// Len returns the length of the message text in bytes.
func (s *Stream) Len() int { return len(s.text) }

// Reset empties the Stream and its cache, keeping its Renderer.
func (s *Stream) Reset() {
	*s = Stream{r: s.r, text: s.text[:0]}
}

// Render returns the message rendered at width columns (see
// Renderer.Render for the shape of the result): Lines(width) joined by
// "\n".
func (s *Stream) Render(width int) string {
	lines := s.Lines(width)
	if !s.joinedOK {
		s.last, s.joinedOK = strings.Join(lines, "\n"), true
	}
	return s.last
}

// Lines returns the message rendered at width columns as lines, without
// the leading and trailing blank lines (none when the message shows
// nothing). It renders the blocks finished since the last call and the
// unfinished tail; see Stream for what invalidates the cache. The slice is
// the Stream's own: the caller must not modify it, and it is valid until
// the next call of a Stream method.
func (s *Stream) Lines(width int) []string {
	width = clampWidth(width)
	if s.fresh && width == s.width {
		return s.lines
	}
	committed := s.advance()
	defs := s.defs
	tail := string(s.text[committed:])
	if s.done {
		_, tailDefs := scanBlock(tail)
		defs += tailDefs
	}
	if width != s.width || defs != s.usedDefs {
		s.width, s.usedDefs = width, defs
		s.joined, s.rendered = lineJoiner{}, 0
	}
	for ; s.rendered < len(s.cuts); s.rendered++ {
		start := 0
		if s.rendered > 0 {
			start = s.cuts[s.rendered-1]
		}
		src := string(s.text[start:s.cuts[s.rendered]])
		s.joined.add(s.r.renderBlock(src, width, defs))
	}
	out := s.r.renderBlock(tail, width, defs)
	s.lines, s.fresh, s.joinedOK = s.joined.withTail(out), true, false
	return s.lines
}

// advance records the blocks finished since the last call and returns the
// offset where the unfinished tail starts.
func (s *Stream) advance() int {
	start := 0
	if n := len(s.cuts); n > 0 {
		start = s.cuts[n-1]
	}
	for {
		end, d := scanBlock(string(s.text[start:]))
		if end < 0 {
			return start
		}
		start += end
		s.cuts = append(s.cuts, start)
		s.defs += d
	}
}
