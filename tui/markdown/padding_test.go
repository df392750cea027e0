package markdown

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// paddingRun is the rule compactPadding follows, as a regular expression:
// runs of glamour's padding cells (a space in a 256-colour foreground, then
// a reset).
var paddingRun = regexp.MustCompile(`(?:\x1b\[38;5;\d{1,3}m \x1b\[m)+`)

func compactPaddingRegexp(s string) string {
	return paddingRun.ReplaceAllStringFunc(s, func(run string) string {
		return "\x1b[m" + strings.Repeat(" ", strings.Count(run, " "))
	})
}

// TestCompactPaddingMatchesTheRule checks compactPadding against the
// regular expression on glamour's output for the streaming benchmark's
// answer and on random mixtures of cells, near-cells and text.
func TestCompactPaddingMatchesTheRule(t *testing.T) {
	r := NewRenderer(Dark)
	text := readFile(t, "../../bench/testdata/stream.md")
	r.mu.Lock()
	out, err := r.term(100).Render(text)
	r.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compactPadding(out), compactPaddingRegexp(out); got != want {
		t.Fatalf("glamour's output: compactPadding differs from the rule (%d bytes, want %d)", len(got), len(want))
	}
	if got := compactPadding(out); len(got) >= len(out) {
		t.Errorf("nothing compacted in %d bytes of glamour's output", len(out))
	}
	pieces := []string{
		"\x1b[38;5;252m \x1b[m", "\x1b[38;5;7m \x1b[m", "\x1b[38;5;2345m \x1b[m", "\x1b[38;5;m \x1b[m",
		"\x1b[38;5;252mx\x1b[m", "\x1b[38;5;", "\x1b[m", " ", "word", "\x1b[38;2;1;2;3m \x1b[m", "\n", "é",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := compactPadding(s), compactPaddingRegexp(s); got != want {
			t.Fatalf("compactPadding(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkCompactPadding compacts glamour's output for the streaming
// benchmark's answer at 100 columns by hand and with the
// regular expression it replaced.
func BenchmarkCompactPadding(b *testing.B) {
	r := NewRenderer(Dark)
	text := readFile(b, "../../bench/testdata/stream.md")
	out, err := r.term(100).Render(text)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			compactPadding(out)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			compactPaddingRegexp(out)
		}
	})
}
