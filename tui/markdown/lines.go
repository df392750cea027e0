package markdown

import (
	"strings"

	xansi "github.com/charmbracelet/x/ansi"
)

// lineJoiner joins drawn blocks as lines, one blank line between two
// blocks that show something: the finished blocks of a Stream, or every
// block of a Render.
type lineJoiner struct {
	lines []string
}

// add appends a drawn block; it costs the block's lines.
func (j *lineJoiner) add(block []string) {
	if len(block) == 0 {
		return
	}
	if len(j.lines) > 0 {
		j.lines = append(j.lines, "")
	}
	j.lines = append(j.lines, block...)
}

// withTail returns the joined lines followed by the drawn tail. The result
// may share j.lines' array and write past its length, so it is valid until
// the next add or withTail; j.lines itself is unchanged.
func (j *lineJoiner) withTail(tail []string) []string {
	if len(tail) == 0 {
		return j.lines
	}
	if len(j.lines) == 0 {
		return tail
	}
	n := len(j.lines)
	all := append(j.lines, "")
	all = append(all, tail...)
	// When the append grew the array, j.lines moves to the new one, so the
	// next frame does not copy the finished lines again.
	j.lines = all[:n]
	return all
}

// blank reports whether a drawn line shows nothing: spaces and escape
// codes only.
func blank(line string) bool {
	return strings.TrimSpace(xansi.Strip(line)) == ""
}
