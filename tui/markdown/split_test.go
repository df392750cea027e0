package markdown

import (
	"reflect"
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
)

// blocksOf splits text and returns its finished blocks followed by the tail.
func blocksOf(text string) []string {
	cuts, _, _ := splitBlocks(text)
	var out []string
	start := 0
	for _, c := range cuts {
		out = append(out, text[start:c])
		start = c
	}
	return append(out, text[start:])
}

func TestSplitBlocks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // finished blocks, then the tail
	}{
		{"empty", "", []string{""}},
		{"one paragraph", "a\nb\n", []string{"a\nb\n"}},
		{"paragraphs", "a\n\nb\n\nc\n", []string{"a\n\n", "b\n\n", "c\n"}},
		{"last line incomplete", "a\n\nb\n\nc", []string{"a\n\n", "b\n\nc"}},
		{"next line incomplete", "a\n\nb", []string{"a\n\nb"}},
		{"blank line with spaces", "a\n  \t\nb\n", []string{"a\n  \t\n", "b\n"}},
		{"leading blank lines", "\n\na\n\nb\n", []string{"\n\na\n\n", "b\n"}},
		{"crlf", "a\r\n\r\nb\r\n", []string{"a\r\n\r\n", "b\r\n"}},
		{"heading then paragraph", "# H\n\ntext\n", []string{"# H\n\n", "text\n"}},
		{"setext heading stays whole", "Title\n===\n\ntext\n", []string{"Title\n===\n\n", "text\n"}},
		{"=== after blank line is a new block", "text\n\n===\n", []string{"text\n\n", "===\n"}},
		{"open fence keeps blank lines", "```go\na\n\nb\n", []string{"```go\na\n\nb\n"}},
		{"closed fence", "```go\na\n\nb\n```\n\nafter\n", []string{"```go\na\n\nb\n```\n\n", "after\n"}},
		{"tilde fence ignores backticks", "~~~\n```\n\nx\n~~~\n\ny\n", []string{"~~~\n```\n\nx\n~~~\n\n", "y\n"}},
		{"longer fence needs longer close", "````\n```\n\nx\n````\n\ny\n", []string{"````\n```\n\nx\n````\n\n", "y\n"}},
		{"fence closer with text is content", "```\n``` x\n\ny\n", []string{"```\n``` x\n\ny\n"}},
		{"backtick info with backtick is no fence", "```a`b\n\nc\n", []string{"```a`b\n\n", "c\n"}},
		{"indented code continues", "    a\n\n    b\n\nc\n", []string{"    a\n\n    b\n\n", "c\n"}},
		{"indented fence is code", "    ```\n\nc\n", []string{"    ```\n\n", "c\n"}},
		{"tight list", "- a\n- b\n\nafter\n", []string{"- a\n- b\n\n", "after\n"}},
		{"loose list stays whole", "- a\n\n- b\n\n  more\n\nafter\n", []string{"- a\n\n- b\n\n  more\n\n", "after\n"}},
		{"ordered loose list", "1. a\n\n2. b\n\n10) c\n\nx\n", []string{"1. a\n\n2. b\n\n10) c\n\n", "x\n"}},
		{"list then thematic break", "- a\n\n---\n", []string{"- a\n\n", "---\n"}},
		{"list then spaced break stays", "- a\n\n* * *\n\nx\n", []string{"- a\n\n* * *\n\n", "x\n"}},
		{"fence in list item", "- a\n\n  ```\n  x\n\n  y\n  ```\n\nz\n", []string{"- a\n\n  ```\n  x\n\n  y\n  ```\n\n", "z\n"}},
		{"unindented line ends list fence", "- a\n  ```\n  x\n\nz\n\nw\n", []string{"- a\n  ```\n  x\n\n", "z\n\n", "w\n"}},
		{"paragraph then list", "Intro:\n- a\n- b\n\nText\n", []string{"Intro:\n- a\n- b\n\n", "Text\n"}},
		{"no list: marker starts new block", "para\n\n- a\n", []string{"para\n\n", "- a\n"}},
		{"table", "| a |\n|---|\n| 1 |\n\nx\n", []string{"| a |\n|---|\n| 1 |\n\n", "x\n"}},
		{"block quotes", "> a\n>\n> b\n\n> c\n\nd\n", []string{"> a\n>\n> b\n\n", "> c\n\n", "d\n"}},
		{"html comment with blank line", "<!--\na\n\nb\n-->\n\nc\n", []string{"<!--\na\n\nb\n-->\n\n", "c\n"}},
		{"one-line comment", "<!-- a -->\n\nb\n", []string{"<!-- a -->\n\n", "b\n"}},
		{"pre block", "<pre>\na\n\nb</PRE>\n\nc\n", []string{"<pre>\na\n\nb</PRE>\n\n", "c\n"}},
		{"div ends at blank", "<div>\na\n\nb\n", []string{"<div>\na\n\n", "b\n"}},
		{"definition description", "Term\n\n: def\n\nx\n\ny\n", []string{"Term\n\n: def\n\n", "x\n\n", "y\n"}},
		{"definition list next term", "T1\n: d1\n\nT2\n: d2\n\nx\n\ny\n", []string{"T1\n: d1\n\nT2\n: d2\n\n", "x\n\n", "y\n"}},
		{"definition list undecided", "T1\n: d1\n\nT2\n", []string{"T1\n: d1\n\nT2\n"}},
		{"reference definition", "[a]: http://x\n\ntext [a]\n", []string{"[a]: http://x\n\n", "text [a]\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := blocksOf(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("blocks of %q:\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestSplitDefinitions(t *testing.T) {
	text := "a [x] [y]\n\n[x]: http://x \"t\"\n[y]: <http://y>\n\n```\n[z]: http://z\n```\n\n" +
		"para\n[w]: http://w\n\n    [v]: http://v\n\ntail\n\n[u]: http://u\n"
	_, defs, tail := splitBlocks(text)
	if want := "[x]: http://x \"t\"\n[y]: <http://y>\n"; defs != want {
		t.Errorf("defs = %q, want %q", defs, want)
	}
	if want := "[u]: http://u\n"; tail != want {
		t.Errorf("tail defs = %q, want %q", tail, want)
	}
}

// TestBlocksDrawAsTheWholeDocument checks the split: the blocks drawn
// one by one and joined equal the whole document parsed and drawn at once.
func TestBlocksDrawAsTheWholeDocument(t *testing.T) {
	docs := map[string]string{
		"fixture": readFixture(t),
		"mixed": "# Title\n\nSome para text here.\n\n- a\n- b\n\n```go\nx := 1\n```\n\n> quote\n\n" +
			"| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\nSetext\n===\n\n## H2\n\n    indented\n\n" +
			"1. one\n\n2. two\n\n<div>\nhi\n</div>\n\ntext [x] and [y][x]\n\n[x]: http://e.com\n\nTerm\n: def\n\nend\n",
		"code first": "```sh\nls\n```\n\nafter code\n",
		"short":      readFile(t, "testdata/short.md"),
		"tabs":       readFile(t, "testdata/tabs.md"),
	}
	r := testRenderer(Dark)
	for name, doc := range docs {
		for _, w := range []int{40, 100} {
			got := r.Render(doc, w)
			want := strings.Join(r.renderBlock(doc, w, ""), "\n")
			if got != want {
				t.Errorf("%s at %d: joined blocks differ from the whole document:\n%s", name, w, diff(want, got))
			}
		}
	}
}

// visible strips escape codes and trailing spaces from each line.
func visible(s string) string {
	lines := strings.Split(xansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
