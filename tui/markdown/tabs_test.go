package markdown

import (
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenCodeTabs pins code blocks with tabs (fenced, in a list item, in
// a quote, indented, with wide characters) in the dark style at two widths;
// run with -update to regenerate testdata/TestGoldenCodeTabs/*.golden.
func TestGoldenCodeTabs(t *testing.T) {
	doc := readFile(t, "testdata/tabs.md")
	r := testRenderer(Dark)
	for _, w := range []int{40, 80} {
		t.Run("dark-"+strconv.Itoa(w), func(t *testing.T) {
			out := r.Render(doc, w)
			if strings.Contains(out, "\t") {
				t.Error("a tab reached the output")
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestCodeTabsExpand checks what a person sees: each tab in code moves to
// the next multiple of 8 columns counted from the start of the code line
// (after the block's margin); tabs outside code blocks are left to glamour.
func TestCodeTabsExpand(t *testing.T) {
	r := testRenderer(Dark)
	cases := []struct {
		name, doc string
		want      []string // visible code lines, the margin removed
	}{
		{"fenced", "```go\nfunc f() {\n\tx := 1\n\t\treturn\n}\n```\n",
			[]string{"func f() {", "        x := 1", "                return", "}"}},
		{"mid-line", "```\na\tb\nabcdefgh\tc\nab\tc\n```\n",
			[]string{"a       b", "abcdefgh        c", "ab      c"}},
		{"indented", "    \tx\n    ab\tc\n",
			[]string{"        x", "ab      c"}},
		{"list item", "- item\n\n  ```\n  \tx\n  ```\n",
			[]string{"        x"}},
		{"wide", "```\n世界\tx\n```\n",
			[]string{"世界    x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := codeLines(visible(r.Render(c.doc, 60)), c.want[0])
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("code lines:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
	for prose, want := range map[string]string{"A tab\tin prose.\n": "A tab in prose.", "`a\tspan`\n": "a span"} {
		if got := strings.TrimSpace(strings.ReplaceAll(visible(r.Render(prose, 60)), "\u00a0", " ")); got != want {
			t.Errorf("%q shows as %q, want %q", prose, got, want)
		}
	}
}

// codeLines returns the len-of-want lines of out starting at the one whose
// trimmed text starts with first's, each without the margin before it.
func codeLines(out, first string) []string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(trimmed, strings.TrimLeft(first, " ")) {
			continue
		}
		margin := len(l) - len(trimmed) - (len(first) - len(strings.TrimLeft(first, " ")))
		var got []string
		for _, c := range lines[i:] {
			if strings.TrimSpace(c) == "" {
				break
			}
			got = append(got, c[min(margin, len(c)):])
		}
		return got
	}
	return nil
}
