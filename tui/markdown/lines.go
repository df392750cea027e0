package markdown

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// lineJoiner is joiner kept as lines: the rendered finished blocks of a
// Stream, joined as glamour joins blocks in a whole document, with the
// facts Stream.Lines needs to add the tail and trim the message's blank
// lines without looking at them again.
//
// The joined text is lines[0] + "\n" + ... + lines[n-1] + "\n" + open: open
// is the unterminated last line (a code block leaves its last line open;
// the next block's first line continues it).
type lineJoiner struct {
	lines []string
	open  string
	cells int // width in cells of open, as joiner.cells

	// first and last are the indices of the first and last non-blank
	// lines; first is -1 while every line is blank.
	first, last int
}

func newLineJoiner() lineJoiner { return lineJoiner{first: -1} }

// seam is joiner.seam: out adjusted to follow the joined lines.
func (j *lineJoiner) seam(out string) string {
	return (&joiner{cells: j.cells}).seam(out)
}

// add appends a rendered block; it costs the block's lines.
func (j *lineJoiner) add(out string) {
	out = j.seam(out)
	rest := out
	for {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			break
		}
		j.push(j.open + line)
		j.open, rest = "", after
	}
	j.open += rest
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		j.cells = xansi.StringWidth(out[i+1:])
	} else {
		j.cells += xansi.StringWidth(out)
	}
}

// push appends one complete line.
func (j *lineJoiner) push(line string) {
	if !blank(line) {
		if j.first < 0 {
			j.first = len(j.lines)
		}
		j.last = len(j.lines)
	}
	j.lines = append(j.lines, line)
}

// blank reports whether a rendered line shows nothing: spaces and escape
// codes only (finish drops such lines at both ends of a message).
func blank(line string) bool {
	return strings.TrimSpace(xansi.Strip(line)) == ""
}

// withTail returns the joined lines followed by the tail's rendering out
// (its first line continuing the open line), with the leading and trailing
// blank lines dropped: the lines of finish(joined + seam(out)). The result
// shares j.lines' array and writes past its length, so it is valid until
// the next add or withTail.
func (j *lineJoiner) withTail(out string) []string {
	n := len(j.lines)
	all := j.lines
	line, rest, more := j.open, j.seam(out), true
	for more {
		var l string
		l, rest, more = strings.Cut(rest, "\n")
		all = append(all, line+l)
		line = ""
	}
	// The tail's lines (all[n:]) were appended to the array beyond
	// j.lines, which keeps its length; when the append grew the array,
	// j.lines moves to the new one, so the next frame does not copy the
	// finished lines again.
	j.lines = all[:n]
	start := j.first
	if start < 0 {
		for start = n; start < len(all) && blank(all[start]); start++ {
		}
	}
	end := len(all)
	for end > n && blank(all[end-1]) {
		end--
	}
	if end == n {
		end = j.last + 1 // every line of the tail is blank
		if j.first < 0 {
			end = start
		}
	}
	if start >= end {
		return nil
	}
	return all[start:end]
}
