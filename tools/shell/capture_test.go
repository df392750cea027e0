package shell

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaptureKeepsEverythingUnderTheLimit(t *testing.T) {
	c := newCapture(100)
	for _, s := range []string{"hello ", "wörld\n", strings.Repeat("x", 80)} {
		c.Write([]byte(s))
	}
	got, cut := c.String()
	if want := "hello wörld\n" + strings.Repeat("x", 80); got != want || cut {
		t.Errorf("String() = %q, %v; want %q, false", got, cut, want)
	}
}

func TestCaptureHeadAndTail(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
	}{
		{"one big write", []string{numbered(1, 1000)}},
		{"line by line", strings.SplitAfter(numbered(1, 1000), "\n")},
		{"odd chunks", chunks(numbered(1, 1000), 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(200)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			got, cut := c.String()
			all := numbered(1, 1000)
			if !cut {
				t.Fatalf("nothing reported cut from %d bytes", len(all))
			}
			head, rest, ok := strings.Cut(got, "[... ")
			if !ok {
				t.Fatalf("no marker in %q", got)
			}
			_, tail, _ := strings.Cut(rest, "...]\n")
			if want := all[:80]; strings.TrimSuffix(head, "\n") != want && head != want {
				t.Errorf("head = %q, want %q", head, want)
			}
			if want := all[len(all)-120:]; tail != want {
				t.Errorf("tail = %q, want %q", tail, want)
			}
			if !strings.Contains(got, "bytes (") || !strings.Contains(got, "lines) cut") {
				t.Errorf("marker does not give bytes and lines: %q", got)
			}
		})
	}
}

func TestCaptureMarkerCounts(t *testing.T) {
	c := newCapture(10) // head 4, tail 6
	c.Write([]byte("aaaa\nbb\ncc\ndddd\n"))
	got, _ := c.String()
	want := "aaaa\n[... 6 bytes (2 lines) cut from the middle of the output ...]\n\ndddd\n"
	if got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCaptureOutputIsValidUTF8(t *testing.T) {
	for limit := 5; limit < 40; limit++ {
		c := newCapture(limit)
		c.Write([]byte(strings.Repeat("日本語", 20)))
		c.Write([]byte("bad \xff\xfe bytes"))
		got, _ := c.String()
		if !utf8.ValidString(got) {
			t.Errorf("limit %d: invalid UTF-8 %q", limit, got)
		}
	}
	c := newCapture(1000)
	c.Write([]byte("ok \xff done"))
	if got, _ := c.String(); got != "ok \uFFFD done" {
		t.Errorf("String() = %q", got)
	}
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\n")
	}
	return b.String()
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
