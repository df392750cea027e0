package markdown

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// readFixture returns the long fixture, which exercises every block kind
// and boundary rule of split.go.
func readFixture(tb testing.TB) string {
	tb.Helper()
	return readFile(tb, "testdata/fixture.md")
}

func readFile(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// chunkers split a text into the deltas of a stream.
// memo marks the chunkers whose reference rendering memoises the drawing
// output per block (see reference); the others use Renderer.render as is.
var chunkers = []struct {
	name  string
	split func(string) []string
	memo  bool
}{
	{"1byte", func(s string) []string { return bySize(s, func() int { return 1 }) }, true},
	{"3runes", byRunes(3), true},
	{"17bytes", func(s string) []string { return bySize(s, func() int { return 17 }) }, false},
	{"random", func(s string) []string {
		rng := rand.New(rand.NewPCG(1, 2))
		return bySize(s, func() int { return 1 + rng.IntN(40) })
	}, false},
	{"boundary-chars", byBoundaryChars, true},
}

// reference renders text from scratch: it splits the whole text again and
// joins freshly assembled blocks. With memo, the drawing of a block
// source already seen (a pure function of source, width, position and
// definitions) is reused, which keeps the 1-byte run fast; the splitting,
// joining and seams are still computed from scratch at every step.
type reference struct {
	r    *Renderer
	memo map[string][]string
}

func (ref *reference) render(text string, width int) string {
	if ref.memo == nil {
		return ref.r.render(text, width, false)
	}
	return assemble(text, clampWidth(width), false, func(src string, w int, defs string) []string {
		key := fmt.Sprint(w, len(defs), defs, src)
		out, ok := ref.memo[key]
		if !ok {
			out = ref.r.renderBlock(src, w, defs)
			ref.memo[key] = out
		}
		return out
	})
}

func bySize(s string, size func() int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size(), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func byRunes(n int) func(string) []string {
	return func(s string) []string {
		var out []string
		for len(s) > 0 {
			k := 0
			for i := 0; i < n && k < len(s); i++ {
				_, size := utf8.DecodeRuneInString(s[k:])
				k += size
			}
			out = append(out, s[:k])
			s = s[k:]
		}
		return out
	}
}

// byBoundaryChars makes every character that can open, close or continue a
// block its own delta, with the text between them as one delta.
func byBoundaryChars(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("\n`~-*+|>[]:#=<! \t0123456789.", s[i]) < 0 {
			continue
		}
		if start < i {
			out = append(out, s[start:i])
		}
		out = append(out, s[i:i+1])
		start = i + 1
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// TestStreamEqualsFullRender is the correctness proof: at every step of the
// short fixture, fed in deltas of every shape, the incremental rendering
// equals the from-scratch rendering of the same text, at two widths, and
// after the width changes mid-stream. The long fixture gets the same proof at
// sampled steps (TestStreamEqualsFullRenderSampled); the exhaustive run over
// it is BenchmarkStreamEveryStep, and FuzzStream tries other texts.
func TestStreamEqualsFullRender(t *testing.T) {
	short := readFile(t, "testdata/short.md")
	for _, c := range chunkers {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			proveStream(t, short, c.split(short), c.memo, nil, 8)
		})
	}
}

// TestStreamEqualsFullRenderSampled checks the long fixture at the steps
// sampleSteps picks: every step whose text ends in a blank line (where
// blocks finish), a seeded random sample of the others, and the last. The
// Streams still receive every delta; they render only at those steps, so
// several blocks often finish between two renders.
func TestStreamEqualsFullRenderSampled(t *testing.T) {
	fixture := readFixture(t)
	for _, c := range chunkers {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			deltas := c.split(fixture)
			proveStream(t, fixture, deltas, true, sampleSteps(deltas, 20), 20)
		})
	}
}

// sampleSteps returns which steps of deltas to check: each step after which
// the text ends in a blank line, n more drawn at random (seeded, so every
// run checks the same steps), and the last step.
func sampleSteps(deltas []string, n int) map[int]bool {
	steps := map[int]bool{len(deltas) - 1: true}
	var text strings.Builder
	for i, d := range deltas {
		text.WriteString(d)
		if strings.HasSuffix(text.String(), "\n\n") {
			steps[i] = true
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range n {
		steps[rng.IntN(len(deltas))] = true
	}
	return steps
}

// proveStream feeds deltas (which must join to text) to three Streams, one
// rendering at 40 columns, one at 100 and one switching between the two
// every 25 checked steps, and at each step in steps (every step when steps is nil)
// checks that each equals the from-scratch rendering of the text so far.
// memo lets the reference reuse glamour's output per block (see reference).
// Then it finishes the Streams, checks them against Renderer.Render, and
// checks that at least minBlocks finished blocks were cached.
func proveStream(tb testing.TB, text string, deltas []string, memo bool, steps map[int]bool, minBlocks int) {
	tb.Helper()
	if got := strings.Join(deltas, ""); got != text {
		tb.Fatal("chunker lost text")
	}
	r := testRenderer(Dark)
	ref := &reference{r: r}
	if memo {
		ref.memo = make(map[string][]string)
	}
	narrow, wide, resized := NewStream(r), NewStream(r), NewStream(r)
	var sofar strings.Builder
	checks := 0
	for i, d := range deltas {
		sofar.WriteString(d)
		narrow.Append(d)
		wide.Append(d)
		resized.Append(d)
		if steps != nil && !steps[i] {
			continue
		}
		want40 := ref.render(sofar.String(), 40)
		want100 := ref.render(sofar.String(), 100)
		check(tb, narrow, want40, sofar.String(), 40, i)
		check(tb, wide, want100, sofar.String(), 100, i)
		// Each width change renders every block again, so resized switches
		// every 25 checks, not on every sampled step.
		if (checks/25)%2 == 0 {
			check(tb, resized, want40, sofar.String(), 40, i)
		} else {
			check(tb, resized, want100, sofar.String(), 100, i)
		}
		checks++
	}
	for _, s := range []*Stream{narrow, wide, resized} {
		s.Finish()
	}
	// Each finished stream at the width it streamed at (a cheap render: the
	// tail and the definitions it brings), and narrow at the other width too
	// (every block again).
	lastWidth := 40
	if ((checks-1)/25)%2 == 1 {
		lastWidth = 100
	}
	finals := []struct {
		s *Stream
		w int
	}{{narrow, 40}, {wide, 100}, {resized, lastWidth}, {narrow, 100}}
	want := map[int]string{40: r.Render(text, 40), 100: r.Render(text, 100)}
	for _, f := range finals {
		if got := f.s.Render(f.w); got != want[f.w] {
			tb.Fatalf("finished stream at %d differs from Render:\n%s", f.w, diff(want[f.w], got))
		}
	}
	if n := len(narrow.cuts); n < minBlocks {
		tb.Errorf("only %d finished blocks were cached; want at least %d", n, minBlocks)
	}
}

func check(tb testing.TB, s *Stream, want, text string, width, step int) {
	tb.Helper()
	got := s.Render(width)
	if got != want {
		tb.Fatalf("step %d, width %d, text so far %q:\n%s", step, width, tailOf(text), diff(want, got))
	}
	if again := s.Render(width); again != got {
		tb.Fatalf("step %d: a second Render differs", step)
	}
}

func tailOf(s string) string {
	if len(s) > 80 {
		return "…" + s[len(s)-80:]
	}
	return s
}

// diff shows the first differing line of two renderings.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i) + ":\nwant " + quote(w) + "\ngot  " + quote(g)
		}
	}
	return "(equal lines)"
}

func TestStreamLifecycle(t *testing.T) {
	r := testRenderer(Light)
	s := NewStream(r)
	if got := s.Render(40); got != "" {
		t.Fatalf("empty stream renders %q", got)
	}
	s.Append("Use [the docs][d].\n\nMore text.\n\n")
	s.Append("[d]: https://example.com\n")
	before := s.Render(40)
	if strings.Contains(before, "example.com") {
		t.Fatal("a definition in the unfinished tail applied to a finished block")
	}
	s.Finish()
	if !s.Done() {
		t.Fatal("Done is false after Finish")
	}
	after := s.Render(40)
	if !strings.Contains(after, "example.com") {
		t.Fatalf("definition not applied after Finish:\n%s", after)
	}
	if after != r.Render(s.Text(), 40) {
		t.Fatal("finished stream differs from Render")
	}
	s.Append("\n\nA late paragraph.\n")
	if s.Done() {
		t.Fatal("Append did not reopen the stream")
	}
	if got, want := s.Render(40), r.render(s.Text(), 40, false); got != want {
		t.Fatalf("reopened stream:\n%s", diff(want, got))
	}
	s.Reset()
	if s.Len() != 0 || s.Text() != "" || s.Render(40) != "" || len(s.cuts) != 0 {
		t.Fatal("Reset left state behind")
	}
}

func TestRenderWidth(t *testing.T) {
	r := testRenderer(Dark)
	text := strings.Repeat("word ", 40) + "\n\n- item " + strings.Repeat("x", 5) + "\n"
	for _, w := range []int{0, 12, 40, 100} {
		out := r.Render(text, w)
		for i, line := range strings.Split(out, "\n") {
			if lw := visibleWidth(line); lw > max(w, MinWidth) {
				t.Errorf("width %d: line %d is %d cells: %q", w, i, lw, line)
			}
		}
		if out != r.Render(text, w) {
			t.Errorf("width %d: rendering is not deterministic", w)
		}
	}
}
