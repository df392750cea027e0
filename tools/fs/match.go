package fs

import (
	"fmt"
	"regexp"
	"strings"
)

// usesCRLF reports whether s ends most of its lines with CRLF.
func usesCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > 0 && 2*crlf >= strings.Count(s, "\n")
}

func toLF(s string) string   { return strings.ReplaceAll(s, "\r\n", "\n") }
func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// occurrences returns the offsets of the non-overlapping occurrences of sub
// (not empty) in s, left to right.
func occurrences(s, sub string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(sub)
	}
}

// overlapping returns the offset of an occurrence of sub that overlaps the
// one at i, or -1.
func overlapping(s, sub string, i int) int {
	end := min(len(s), i+2*len(sub)-1)
	if j := strings.Index(s[i+1:end], sub); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// lineNumbers returns the 1-based line numbers of the sorted offsets at.
func lineNumbers(s string, at []int) []int {
	out := make([]int, len(at))
	line, from := 1, 0
	for k, i := range at {
		line += strings.Count(s[from:i], "\n")
		from = i
		out[k] = line
	}
	return out
}

// listLines formats sorted line numbers for a message, at most 20 of them,
// a line that appears k times as "7 (k times)".
func listLines(lines []int) string {
	const most = 20
	var b strings.Builder
	shown := 0
	for k := 0; k < len(lines); {
		j := k + 1
		for j < len(lines) && lines[j] == lines[k] {
			j++
		}
		if shown == most {
			fmt.Fprintf(&b, " and %d more", len(lines)-k)
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, lines[k])
		if j-k > 1 {
			fmt.Fprintf(&b, " (%d times)", j-k)
		}
		shown++
		k = j
	}
	return b.String()
}

// replaceAt replaces the n bytes at each offset of at (sorted, not
// overlapping) in s by repl. It returns the new text and the line edits
// that make it, each covering whole lines, occurrences that share a line in
// one edit. Its work is linear in the size of s and of the output.
func replaceAt(s string, at []int, n int, repl string) (string, []lineEdit) {
	var out strings.Builder
	out.Grow(len(s) + len(at)*(len(repl)-n))
	prev := 0
	for _, i := range at {
		out.WriteString(s[prev:i])
		out.WriteString(repl)
		prev = i + n
	}
	out.WriteString(s[prev:])

	// nl is the first newline at or after the last offset asked of
	// lineEnd (len(s) when there is none); offsets asked only grow, so
	// finding the ends of lines costs one pass over s.
	nl := -1
	lineEnd := func(q int) int {
		if q >= len(s) {
			return len(s)
		}
		if nl < q {
			nl = len(s)
			if j := strings.IndexByte(s[q:], '\n'); j >= 0 {
				nl = q + j
			}
		}
		return min(nl+1, len(s))
	}
	var edits []lineEdit
	line, counted := 0, 0
	for k := 0; k < len(at); {
		start := strings.LastIndexByte(s[:at[k]], '\n') + 1
		line += strings.Count(s[counted:start], "\n")
		counted = start
		var b strings.Builder
		b.WriteString(s[start:at[k]])
		for {
			b.WriteString(repl)
			end := at[k] + n
			k++
			// The edit ends at the end of the line where the last
			// occurrence ends, or of the next line when the replacement
			// leaves a line without its newline.
			le := end
			if s[end-1] != '\n' {
				le = lineEnd(end)
			} else if t := b.String(); t != "" && t[len(t)-1] != '\n' && end < len(s) {
				le = lineEnd(end)
			}
			if k < len(at) && at[k] < le {
				b.WriteString(s[end:at[k]])
				continue
			}
			b.WriteString(s[end:le])
			edits = append(edits, lineEdit{start: start, end: le, line: line, new: b.String()})
			break
		}
	}
	return out.String(), edits
}

// numberPrefix matches a line that starts with read_file's line number.
var numberPrefix = regexp.MustCompile(`(?m)^ *\d+\t`)

// notFoundHint says why old may not be in s, or "" when nothing is known.
func notFoundHint(s, old string) string {
	if ls := strings.Split(strings.TrimRight(old, "\r\n"), "\n"); len(numberPrefix.FindAllStringIndex(old, -1)) == len(ls) {
		return "old_string seems to include the line numbers read_file shows; leave them out and copy only the text after the tab"
	}
	if i := looseIndex(s, old); i >= 0 {
		line := lineNumbers(s, []int{i})[0]
		return fmt.Sprintf("it does match at line %d if whitespace and line endings are ignored; copy the text exactly, indentation included, from a fresh read_file", line)
	}
	return ""
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// squeeze replaces each run of ASCII white space in s by one space. It
// leaves other bytes alone, so UTF-8 stays whole.
func squeeze(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(s[i])
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// looseIndex returns the offset in s where old occurs when runs of white
// space count as one space, or -1.
func looseIndex(s, old string) int {
	o := strings.TrimSpace(squeeze(old))
	if o == "" {
		return -1
	}
	k := strings.Index(squeeze(s), o)
	if k < 0 {
		return -1
	}
	// Walk s again, counting squeezed bytes, to find where byte k came from.
	n, space := 0, false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			space = true
			continue
		}
		if space {
			n++ // the space squeeze wrote before this byte
			space = false
		}
		if n == k {
			return i
		}
		n++
	}
	return -1
}
