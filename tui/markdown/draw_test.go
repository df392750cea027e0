package markdown

import (
	"regexp"
	"strings"
	"testing"
)

// sgrOnly matches the escape sequences the renderer itself writes.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// The model's text cannot reach the terminal as control sequences: an
// escape, a carriage return, a C1 control or a backspace in prose, code,
// a link or a table shows as U+FFFD (or nothing, for \r).
func TestControlCharactersAreNotSentToTheTerminal(t *testing.T) {
	evil := "\x1b[2J\x1b]0;title\x07\b\u009b31m"
	doc := "Prose " + evil + " here.\n\n```go\nx := \"" + evil + "\"\r\n```\n\n" +
		"[link" + evil + "](http://x/" + evil + ")\n\n| a" + evil + " |\n|---|\n| b |\n\n<div>" + evil + "</div>\n"
	for _, st := range []Style{Dark, Light} {
		out := NewRenderer(st).Render(doc, 80)
		rest := sgrOnly.ReplaceAllString(out, "")
		for _, c := range rest {
			if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c < 0xa0 {
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
	r := NewRenderer(Dark)
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
	got := visible(NewRenderer(Dark).Render(doc, 80))
	want := "left   │ mid │ right\n" +
		"───────┼─────┼──────\n" +
		"a      │  b  │     c\n" +
		"longer │  x  │ 12345"
	if got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
}

// Lists, quotes and headings draw with their markers, nested lists
// indented under their item, and ordered lists keep their numbers.
func TestBlockMarkers(t *testing.T) {
	doc := "# Title\n\n### Third\n\n- a\n  - b\n- [x] done\n- [ ] todo\n\n9. nine\n10. ten\n\n> quoted\n\n***\n"
	got := visible(NewRenderer(Dark).Render(doc, 80))
	want := "\u00a0Title\u00a0\n\n### Third\n\n• a\n  • b\n• [✓] done\n• [ ] todo\n\n 9. nine\n10. ten\n\n│ quoted\n\n────────"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// Code is coloured by its language, and a code line cut at the width keeps
// its colour on every piece.
func TestCodeIsHighlightedAcrossCuts(t *testing.T) {
	doc := "```go\n// " + strings.Repeat("comment ", 12) + "\nfunc f() {}\n```\n"
	out := NewRenderer(Dark).Render(doc, 40)
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		t.Fatalf("the long comment was not cut:\n%s", out)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, codeMargin+"\x1b[38;2;") || !strings.HasSuffix(l, reset) {
			t.Errorf("a piece of the comment is not coloured on its own: %q", l)
		}
	}
	plainOut := NewRenderer(Dark).Render("```nosuchlang\nfunc f() {}\n```\n", 40)
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
	r := NewRenderer(Dark)
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
