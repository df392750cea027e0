package fs

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

const (
	searchChunk   = 128 << 10 // bytes a searcher reads at a time
	searchMaxLine = 64 << 20  // bytes: a file with a longer line is not searched
)

var errLongLine = errors.New("a line longer than 64 MiB")

// searcher searches files one after another with a reusable buffer; each
// worker has its own.
type searcher struct {
	m   *matcher
	buf []byte
}

func newSearcher(m *matcher) *searcher { return &searcher{m: m} }

// search reads r (the file rel) in chunks of whole lines and returns its
// matching lines; with keep false it only counts them. A NUL byte in the
// first 8 KiB makes it stop and report binary. It checks ctx before each
// chunk, so a cancelled search of a huge file stops within one chunk.
func (s *searcher) search(ctx context.Context, r io.Reader, rel string, keep bool) (fm fileMatches, binary bool, err error) {
	if len(s.buf) != searchChunk {
		s.buf = make([]byte, searchChunk)
	}
	fm.rel = rel
	n, line, first := 0, 1, true
	for {
		if err := ctx.Err(); err != nil {
			return fm, false, err
		}
		k, err := r.Read(s.buf[n:])
		n += k
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return fm, false, err
		}
		if !eof && n < len(s.buf) {
			continue
		}
		if first {
			if bytes.IndexByte(s.buf[:min(n, binarySniff)], 0) >= 0 {
				return fm, true, nil
			}
			first = false
		}
		text := s.buf[:n]
		if !eof {
			cut := bytes.LastIndexByte(text, '\n')
			if cut < 0 {
				if len(s.buf) >= searchMaxLine {
					return fm, false, errLongLine
				}
				s.buf = append(s.buf[:n], make([]byte, len(s.buf))...)
				continue
			}
			text = text[:cut+1]
		}
		line = s.scan(text, line, &fm, keep, !eof)
		if eof {
			return fm, false, nil
		}
		n = copy(s.buf, s.buf[len(text):n])
	}
}

// scan adds the matching lines of text, whose first line is number line,
// to fm, and returns the number of the line after text when count is set.
func (s *searcher) scan(text []byte, line int, fm *fileMatches, keep, count bool) int {
	last := 0
	s.m.scan(text, func(start, end int) bool {
		line += bytes.Count(text[last:start], newline)
		last = start
		fm.count++
		if keep && len(fm.lines) < grepLimit {
			fm.lines = append(fm.lines, matchLine{n: line, text: clip(text[start:end])})
		}
		return true
	})
	if count {
		line += bytes.Count(text[last:], newline)
	}
	return line
}

var newline = []byte{'\n'}

// clip returns a line for display, cut to grepMaxChars characters.
func clip(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) <= grepMaxChars {
		return string(b)
	}
	c := cutRunes(b, grepMaxChars)
	if len(c) == len(b) {
		return string(b)
	}
	return string(c) + "…"
}

// collector gathers the matches of all files and keeps only those that can
// be among the first limit in path order, so memory stays bounded however
// many lines match.
type collector struct {
	limit int
	// cutoff is the path after which no file can be shown, once known.
	cutoff atomic.Pointer[string]

	mu                                  sync.Mutex
	kept                                []fileMatches
	keptLines                           int
	total, files, binaries, unreadables int
}

func newCollector(limit int) *collector { return &collector{limit: limit} }

// wants reports whether lines of the file rel may still be shown.
func (c *collector) wants(rel string) bool {
	p := c.cutoff.Load()
	return p == nil || rel < *p
}

func (c *collector) add(fm fileMatches) {
	if fm.count == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += fm.count
	c.files++
	if !c.wants(fm.rel) {
		return
	}
	c.kept = append(c.kept, fm)
	c.keptLines += len(fm.lines)
	if c.keptLines >= 2*c.limit {
		c.prune()
	}
}

// prune keeps the first files in path order that hold limit lines.
func (c *collector) prune() {
	slices.SortFunc(c.kept, func(a, b fileMatches) int { return cmp.Compare(a.rel, b.rel) })
	sum := 0
	for i, fm := range c.kept {
		sum += len(fm.lines)
		if sum >= c.limit {
			c.kept, c.keptLines = c.kept[:i+1], sum
			c.cutoff.Store(&fm.rel)
			return
		}
	}
}

func (c *collector) binary() {
	c.mu.Lock()
	c.binaries++
	c.mu.Unlock()
}

func (c *collector) unreadable() {
	c.mu.Lock()
	c.unreadables++
	c.mu.Unlock()
}

// top returns the first limit matches as path:line:text, in path order.
func (c *collector) top() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	var out []string
	for _, fm := range c.kept {
		for _, l := range fm.lines {
			if len(out) == c.limit {
				return out
			}
			out = append(out, fm.rel+":"+strconv.Itoa(l.n)+":"+l.text)
		}
	}
	return out
}
