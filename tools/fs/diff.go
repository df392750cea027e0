package fs

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// lineEdit replaces whole lines of a text: the bytes old[start:end], which
// begin at the start of line number line (0-based) and end just after a
// newline or at the end of the text, become new.
type lineEdit struct {
	start, end int
	line       int
	new        string
}

// splitLines splits s after each newline; the last line has no newline when
// s does not end with one. An empty s has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// lineDiff returns the line edits that turn before into after, computed by
// the Myers algorithm of go-udiff (which bounds its work on large texts at
// the price of a longer diff).
func lineDiff(before, after string) []lineEdit {
	a, b := splitLines(before), splitLines(after)
	offsets := make([]int, len(a)+1)
	for i, l := range a {
		offsets[i+1] = offsets[i] + len(l)
	}
	var edits []lineEdit
	for _, d := range lcs.DiffLines(a, b) {
		edits = append(edits, lineEdit{
			start: offsets[d.Start], end: offsets[d.End], line: d.Start,
			new: strings.Join(b[d.ReplStart:d.ReplEnd], ""),
		})
	}
	return edits
}

// hunkPart is one edit with its lines, trimmed of the lines it leaves as
// they were.
type hunkPart struct {
	start, end int // bytes of old replaced, line-aligned
	line       int // 0-based line of start
	del, ins   []string
}

// unifiedDiff renders edits of old, sorted and not overlapping, as a
// unified diff between the files named from and to, with diffContext lines
// of context, and counts the lines added and removed. Its work is linear in
// the size of old and the edits. No edits give an empty diff.
func unifiedDiff(from, to, old string, edits []lineEdit) (diff string, added, removed int) {
	parts := make([]hunkPart, 0, len(edits))
	for _, e := range edits {
		p := hunkPart{start: e.start, end: e.end, line: e.line, del: splitLines(old[e.start:e.end]), ins: splitLines(e.new)}
		for len(p.del) > 0 && len(p.ins) > 0 && p.del[0] == p.ins[0] {
			p.start += len(p.del[0])
			p.line++
			p.del, p.ins = p.del[1:], p.ins[1:]
		}
		for len(p.del) > 0 && len(p.ins) > 0 && p.del[len(p.del)-1] == p.ins[len(p.ins)-1] {
			p.end -= len(p.del[len(p.del)-1])
			p.del, p.ins = p.del[:len(p.del)-1], p.ins[:len(p.ins)-1]
		}
		if len(p.del) > 0 || len(p.ins) > 0 {
			parts = append(parts, p)
			added += len(p.ins)
			removed += len(p.del)
		}
	}
	if len(parts) == 0 {
		return "", 0, 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	shift := 0 // lines added minus lines removed by the hunks written so far
	for i := 0; i < len(parts); {
		// A hunk takes the parts separated by at most 2*diffContext lines.
		j := i + 1
		for j < len(parts) && strings.Count(old[parts[j-1].end:parts[j].start], "\n") <= 2*diffContext {
			j++
		}
		var body strings.Builder
		before := lastLines(old[:parts[i].start], diffContext)
		oldN, newN := len(before), len(before)
		writeLines(&body, ' ', before)
		for k := i; k < j; k++ {
			if k > i {
				same := splitLines(old[parts[k-1].end:parts[k].start])
				writeLines(&body, ' ', same)
				oldN, newN = oldN+len(same), newN+len(same)
			}
			writeLines(&body, '-', parts[k].del)
			writeLines(&body, '+', parts[k].ins)
			oldN, newN = oldN+len(parts[k].del), newN+len(parts[k].ins)
		}
		after := firstLines(old[parts[j-1].end:], diffContext)
		writeLines(&body, ' ', after)
		oldN, newN = oldN+len(after), newN+len(after)
		oldStart := parts[i].line - len(before) + 1
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldN), hunkRange(oldStart+shift, newN))
		b.WriteString(body.String())
		for k := i; k < j; k++ {
			shift += len(parts[k].ins) - len(parts[k].del)
		}
		i = j
	}
	return b.String(), added, removed
}

// hunkRange formats a hunk header's range as GNU diff does: an empty range
// names the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func writeLines(b *strings.Builder, mark byte, lines []string) {
	for _, l := range lines {
		b.WriteByte(mark)
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// lastLines returns the last n lines of s, which ends at a line start.
func lastLines(s string, n int) []string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		i = strings.LastIndexByte(s[:i-1], '\n') + 1
	}
	return splitLines(s[i:])
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) []string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			i = len(s)
			break
		}
		i += j + 1
	}
	return splitLines(s[:i])
}
