package fs

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies a unified diff made by unifiedDiff to old, checking
// every context and removed line, and returns the new text.
func applyDiff(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := splitLines(old)
	dl := splitLines(diff)
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		return "", fmt.Errorf("no headers")
	}
	var out strings.Builder
	next := 0 // index in src of the next line not yet copied
	for i := 2; i < len(dl); {
		var from, on, nn int
		h := dl[i]
		if _, err := fmt.Sscanf(h, "@@ -%s +%s @@", new(string), new(string)); err != nil {
			return "", fmt.Errorf("bad hunk header %q", h)
		}
		f := strings.Fields(h)
		from, on = hunkNums(f[1][1:])
		_, nn = hunkNums(f[2][1:])
		start := from - 1
		if on == 0 {
			start = from
		}
		if start < next {
			return "", fmt.Errorf("hunk %q goes back", h)
		}
		for ; next < start; next++ {
			out.WriteString(src[next])
		}
		i++
		gotOld, gotNew := 0, 0
		for i < len(dl) && !strings.HasPrefix(dl[i], "@@") {
			l := dl[i]
			i++
			text := l[1:]
			if i < len(dl) && dl[i] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					return "", fmt.Errorf("line %d: want %q, have %q", next+1, text, src[min(next, len(src)-1)])
				}
				next++
				gotOld++
				if l[0] == ' ' {
					out.WriteString(text)
					gotNew++
				}
			case '+':
				out.WriteString(text)
				gotNew++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if gotOld != on || gotNew != nn {
			return "", fmt.Errorf("hunk %q has %d old and %d new lines", h, gotOld, gotNew)
		}
	}
	for ; next < len(src); next++ {
		out.WriteString(src[next])
	}
	return out.String(), nil
}

func hunkNums(s string) (int, int) {
	a, b, ok := strings.Cut(s, ",")
	x, _ := strconv.Atoi(a)
	if !ok {
		return x, 1
	}
	y, _ := strconv.Atoi(b)
	return x, y
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"one line", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"no newline at end", "a\nb", "a\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"append", "a\n", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n"},
		{"from empty", "", "x\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n"},
		{"to empty", "x\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"},
		{"same", "x\n", "x\n", ""},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := unifiedDiff("a/f", "b/f", tc.old, lineDiff(tc.old, tc.new))
			if got != tc.want {
				t.Errorf("diff =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Random edits, made by replaceAt and diffed with its line edits or with
// lineDiff, give diffs that turn the old text into the new one.
func TestDiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "ab", "\n", "\n", "\r\n", "é", " "}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	for i := range 3000 {
		s := gen(r.IntN(40))
		old := gen(1 + r.IntN(3))
		repl := gen(r.IntN(3))
		at := occurrences(s, old)
		if len(at) == 0 {
			continue
		}
		after, edits := replaceAt(s, at, len(old), repl)
		if want := strings.ReplaceAll(s, old, repl); after != want {
			t.Fatalf("%d: replaceAt(%q, %q, %q) = %q, want %q", i, s, old, repl, after, want)
		}
		for name, e := range map[string][]lineEdit{"replaceAt": edits, "lineDiff": lineDiff(s, after)} {
			d, added, removed := unifiedDiff("a/f", "b/f", s, e)
			got, err := applyDiff(s, d)
			if err != nil || got != after {
				t.Fatalf("%d %s: %q -> %q by %q -> %q: diff\n%s\napplies to %q, %v", i, name, s, old, repl, after, d, got, err)
			}
			if c := strings.Count(d, "\n+") - strings.Count(d, "\n+++ "); c != added {
				t.Fatalf("%d %s: added = %d, diff has %d", i, name, added, c)
			}
			if c := strings.Count(d, "\n-"); c != removed {
				t.Fatalf("%d %s: removed = %d, diff has %d\n%s", i, name, removed, c, d)
			}
		}
	}
}
