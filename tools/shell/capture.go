package shell

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture is an io.Writer that keeps at most limit bytes of what is written
// to it: the first 40% (head) and the last 60% (tail, a ring buffer), and
// counts the rest. Its memory is bounded by limit whatever the volume
// written. It is safe for concurrent use.
type capture struct {
	mu      sync.Mutex
	head    []byte
	headMax int
	ring    []byte // allocated on first overflow of head; len(ring) == tail capacity
	ringMax int
	ringLen int // bytes held in ring
	ringEnd int // index in ring where the next byte goes
	total   int64
	lines   int64 // newlines in everything written
}

func newCapture(limit int) *capture {
	headMax := limit * 2 / 5
	return &capture{headMax: headMax, ringMax: limit - headMax}
}

// Write never fails, so the command never sees a broken pipe because of the
// cap.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.ringMax == 0 {
		return n, nil
	}
	if c.ring == nil {
		c.ring = make([]byte, c.ringMax)
	}
	if len(p) > c.ringMax {
		p = p[len(p)-c.ringMax:]
	}
	k := copy(c.ring[c.ringEnd:], p)
	copy(c.ring, p[k:])
	c.ringEnd = (c.ringEnd + len(p)) % c.ringMax
	c.ringLen = min(c.ringLen+len(p), c.ringMax)
	return n, nil
}

// Total returns the number of bytes written.
func (c *capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// String returns the kept output as valid UTF-8 and whether anything was
// cut. When something was cut, a marker line between head and tail says how
// many bytes and lines are missing.
func (c *capture) String() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := (c.ringEnd - c.ringLen + c.ringMax) % max(c.ringMax, 1)
	tail := make([]byte, 0, c.ringLen)
	if c.ringLen > 0 {
		if start+c.ringLen <= c.ringMax {
			tail = append(tail, c.ring[start:start+c.ringLen]...)
		} else {
			tail = append(tail, c.ring[start:]...)
			tail = append(tail, c.ring[:c.ringEnd]...)
		}
	}
	cut := c.total - int64(len(c.head)) - int64(len(tail))
	if cut == 0 {
		return safeText(append(c.head[:len(c.head):len(c.head)], tail...)), false
	}
	head := trimPartialRuneEnd(c.head)
	tail = trimPartialRuneStart(tail)
	cut = c.total - int64(len(head)) - int64(len(tail))
	cutLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.WriteString(safeText(head))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d bytes (%d lines) cut from the middle of the output ...]\n", cut, cutLines)
	b.WriteString(safeText(tail))
	return b.String(), true
}

// safeText makes b valid UTF-8, replacing invalid bytes with U+FFFD.
func safeText(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence cut off at the end
// of b.
func trimPartialRuneEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// trimPartialRuneStart drops continuation bytes left at the start of b by a
// cut in the middle of a UTF-8 sequence.
func trimPartialRuneStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// Tail returns the last n lines of what was written (from the kept bytes;
// a partial last line counts as a line) and the total bytes written, for
// progress while the command runs.
func (c *capture) Tail(n int) (string, int64) {
	c.mu.Lock()
	var last []byte
	switch {
	case c.ringLen > 0:
		start := (c.ringEnd - c.ringLen + c.ringMax) % c.ringMax
		if start+c.ringLen <= c.ringMax {
			last = append(last, c.ring[start:start+c.ringLen]...)
		} else {
			last = append(append(last, c.ring[start:]...), c.ring[:c.ringEnd]...)
		}
	default:
		last = append(last, c.head...)
	}
	total := c.total
	c.mu.Unlock()
	last = bytes.TrimRight(last, "\n")
	for i, cut := len(last)-1, 0; i >= 0; i-- {
		if last[i] == '\n' {
			if cut++; cut == n {
				last = last[i+1:]
				break
			}
		}
	}
	return safeText(trimPartialRuneStart(last)), total
}
