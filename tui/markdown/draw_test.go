package markdown

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/tui/markdown/highlight"
)

// sgrOnly matches the escape sequences the renderer itself writes.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// The model's text cannot reach the terminal as control sequences: an
// escape, a carriage return, a C1 control or a backspace in prose, code,
// a link or a table shows as U+FFFD (or nothing, for \r).
func TestControlCharactersAreNotSentToTheTerminal(t *testing.T) {
	evil := "\x1b[2J\x1b]0;title\x07\b\u009b31m\x9b8m\xff\u202e"
	doc := "Prose " + evil + " here.\n\n```go\nx := \"" + evil + "\"\r\n```\n\n" +
		"[link" + evil + "](http://x/" + evil + ")\n\n| a" + evil + " |\n|---|\n| b |\n\n<div>" + evil + "</div>\n"
	for _, st := range []Style{Dark, Light} {
		out := testRenderer(st).Render(doc, 80)
		rest := sgrOnly.ReplaceAllString(out, "")
		if !utf8.ValidString(rest) {
			t.Fatalf("bytes that are not UTF-8 reached the output:\n%q", out)
		}
		for _, c := range rest {
			if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c < 0xa0 || c == 0x202e {
				t.Fatalf("control character %U reached the output:\n%q", c, out)
			}
		}
		if !strings.Contains(rest, "\uFFFD[2J") {
			t.Errorf("the escape is not shown as U+FFFD:\n%q", rest)
		}
	}
}

// Every line fits the width, code and tables included: a long code line
// is cut into pieces (all of its text still shown), a wide table's cells
// wrap, a long word is cut.
func TestEverythingFitsTheWidth(t *testing.T) {
	code := "x := \"" + strings.Repeat("abcdefghij", 9) + "\""
	doc := "```go\n" + code + "\n```\n\n" +
		"| name | description |\n|---|---|\n| alpha | " + strings.Repeat("lorem ", 20) + "|\n\n" +
		"See https://example.com/" + strings.Repeat("very-long-path/", 6) + "\n\n" +
		"> - quoted list item with some words to wrap around\n"
	r := testRenderer(Dark)
	for _, w := range []int{12, 30, 50} {
		out := r.Render(doc, w)
		for i, line := range strings.Split(out, "\n") {
			if cw := visibleWidth(line); cw > w {
				t.Errorf("width %d: line %d is %d cells: %q", w, i, cw, line)
			}
		}
		shown := strings.Join(strings.Fields(strings.ReplaceAll(visible(out), "\n  ", "")), "")
		if !strings.Contains(shown, strings.ReplaceAll(code, " ", "")) {
			t.Errorf("width %d: the code line lost text:\n%s", w, visible(out))
		}
		if strings.Count(visible(out), "lorem") != 20 {
			t.Errorf("width %d: the table lost words:\n%s", w, visible(out))
		}
	}
}

// A table's columns line up and keep their alignment.
func TestTableColumns(t *testing.T) {
	doc := "| left | mid | right |\n|:---|:---:|---:|\n| a | b | c |\n| longer | x | 12345 |\n"
	got := visible(testRenderer(Dark).Render(doc, 80))
	want := "left   │ mid │ right\n" +
		"───────┼─────┼──────\n" +
		"a      │  b  │     c\n" +
		"longer │  x  │ 12345"
	if got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
}

// Lists, quotes and headings draw with their markers, nested lists
// indented under their item, a task's box in place of its bullet, and
// ordered lists keep their numbers.
func TestBlockMarkers(t *testing.T) {
	doc := "# Title\n\n### Third\n\n- a\n  - b\n- [x] done\n- [ ] todo\n\n9. nine\n10. ten\n\n> quoted\n\n***\n"
	got := visible(testRenderer(Dark).Render(doc, 80))
	want := "\u00a0Title\u00a0\n\n### Third\n\n• a\n  • b\n[✓] done\n[ ] todo\n\n 9. nine\n10. ten\n\n│ quoted\n\n────────"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// Code is coloured by its language, and a code line cut at the width keeps
// its colour on every piece.
func TestCodeIsHighlightedAcrossCuts(t *testing.T) {
	doc := "```go\n// " + strings.Repeat("comment ", 12) + "\nfunc f() {}\n```\n"
	out := testRenderer(Dark).Render(doc, 40)
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		t.Fatalf("the long comment was not cut:\n%s", out)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, codeMargin+"\x1b[38;2;") || !strings.HasSuffix(l, reset) {
			t.Errorf("a piece of the comment is not coloured on its own: %q", l)
		}
	}
	plainOut := testRenderer(Dark).Render("```nosuchlang\nfunc f() {}\n```\n", 40)
	if strings.Contains(plainOut, "\x1b[") {
		t.Errorf("code in an unknown language is coloured: %q", plainOut)
	}
}

// A code block longer than a highlighted piece is coloured on every line,
// and keeps each line where it was.
func TestLongCodeBlockIsHighlightedInPieces(t *testing.T) {
	var code strings.Builder
	for i := range 3*hlChunk + 5 {
		code.WriteString("x" + itoa(i) + " := \"s\" // c\n")
	}
	doc := "```go\n" + code.String() + "```\n"
	r := testRenderer(Dark)
	for range 2 { // the second time from the cache
		lines := strings.Split(r.Render(doc, 80), "\n")
		if len(lines) != 3*hlChunk+5 {
			t.Fatalf("%d lines, want %d", len(lines), 3*hlChunk+5)
		}
		for i, l := range lines {
			if !strings.Contains(l, "\x1b[38;2;") || !strings.Contains(visible(l), "x"+itoa(i)+" := ") {
				t.Fatalf("line %d is %q", i, l)
			}
		}
	}
}

// When lexing a piece of a long code block runs out of its time budget,
// that piece is shown plain and the others are still coloured. The clock
// moves a millisecond at each look, so a piece's cost is its number of
// tokens, not the machine's load.
func TestOnlyThePieceThatRanOutOfTimeIsPlain(t *testing.T) {
	var code strings.Builder
	for i := range 3 * hlChunk {
		if i/hlChunk == 1 { // the middle piece: many tokens a line
			code.WriteString("y" + itoa(i) + " = a + b + c + d + e + f + g + h + i + j\n")
		} else {
			code.WriteString("x" + itoa(i) + "\n")
		}
	}
	var clock time.Time
	r := NewRenderer(Dark)
	r.hl.budget = highlight.Budget{Limit: 10 * time.Millisecond, Now: func() time.Time {
		clock = clock.Add(time.Millisecond)
		return clock
	}}
	lines := strings.Split(r.Render("```go\n"+code.String()+"```\n", 80), "\n")
	if len(lines) != 3*hlChunk {
		t.Fatalf("%d lines, want %d", len(lines), 3*hlChunk)
	}
	for i, l := range lines {
		coloured := strings.Contains(l, "\x1b[38;2;")
		if want := i/hlChunk != 1; coloured != want || !strings.Contains(visible(l), itoa(i)) {
			t.Fatalf("line %d is %q; want coloured: %v", i, l, want)
		}
	}
}

// Wide characters, narrow widths, deep nesting and wide tables still fit
// the width, and no drawn line holds a line break (the pane counts each
// as one row).
func TestNastyInputsFitTheWidth(t *testing.T) {
	cjk := strings.Repeat("中文字符", 12)
	docs := map[string]string{
		"cjk paragraph":   "aaaaaaaaa" + cjk + "\n",
		"cjk code":        "```\naaaaaaa中bbbbbbbbbbbbbbbbb" + cjk + "\n```\n",
		"cjk go code":     "```go\nx := \"" + cjk + "\"\n```\n",
		"many columns":    "|a|b|c|d|e|f|g|h|i|j|\n|-|-|-|-|-|-|-|-|-|-|\n|1|2|3|4|5|6|7|8|9|0|\n",
		"wide cells":      "| 中文中文中文 | 😀😀😀 |\n|---|---|\n| x | y |\n",
		"nested ordered":  "1. a\n   1. b\n      1. c\n         1. d\n            1. e\n               1. f deep words here\n",
		"nested quotes":   ">>>>>> quoted text here\n",
		"code span break": "> quoted `code\nspan` end\n\ntext <span\nclass=x> end\n\n![a\\\nb](u)\n",
	}
	r := testRenderer(Dark)
	for name, doc := range docs {
		for _, w := range []int{10, 11, 17, 40, 79} {
			s := NewStream(r)
			s.Append(doc)
			for i, line := range s.Lines(w) {
				if strings.Contains(line, "\n") {
					t.Errorf("%s at %d: line %d holds a line break: %q", name, w, i, line)
				}
				if cw := visibleWidth(line); cw > w {
					t.Errorf("%s at %d: line %d is %d cells: %q", name, w, i, cw, line)
				}
			}
		}
	}
}

// A line shaped like a link definition that is not one ("[Note]: read
// this") is drawn once, where it was written.
func TestALineShapedLikeADefinitionIsShownOnce(t *testing.T) {
	for _, line := range []string{"[Note]: this is important", "[1]: see footnote below", "[a]: http://x 'ok' trailing"} {
		out := visible(testRenderer(Dark).Render("Hello\n\n"+line+"\n\nWorld\n", 80))
		if n := strings.Count(out, line[:4]); n != 1 {
			t.Errorf("%q is drawn %d times:\n%s", line, n, out)
		}
	}
	out := visible(testRenderer(Dark).Render("See [docs].\n\n[docs]: https://e.com/x\n", 80))
	if !strings.Contains(out, "https://e.com/x") || strings.Contains(out, "[docs]:") {
		t.Errorf("a real definition is not applied:\n%s", out)
	}
}

// Text after an HTML comment's end shows; link destinations are shown
// with their escapes and entities resolved.
func TestCommentTailAndLinkDestinations(t *testing.T) {
	out := visible(testRenderer(Dark).Render("<!-- note --> Run `make` first.\n\n[t](http://x?a=1&amp;b=2) [u](http://x/\\_y)\n", 80))
	for _, want := range []string{"Run", "make", "first.", "http://x?a=1&b=2", "http://x/_y"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q is missing:\n%s", want, out)
		}
	}
	if strings.Contains(out, "note") {
		t.Errorf("the comment itself shows:\n%s", out)
	}
}
