package gfm_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/agent-dev/agent/tui/markdown/gfm"
)

// cases exercise every parser of the package: tables (alignments, escaped
// pipes inside code, ragged rows), strikethrough, task lists, definition
// lists and autolinks (protocols, www., e-mail, trailing punctuation,
// parentheses, an entity at the end).
var cases = []string{
	"| a | b | c | d |\n|:--|--:|:-:|---|\n| 1 | `x \\| y` | 3 |\n| 4 | 5 | 6 | 7 | 8 |\n",
	"text before\n| h |\n|---|\n| c |\n\nnot | a | table\n--- | x\n",
	"~~struck~~ and ~single~ and ~~~three~~~ **~~both~~**\n",
	"- [ ] open\n- [x] done\n- [X] also done\n- [y] not a box\n  - [ ] nested\n",
	"Term\n: its definition\n: another\n\nTerm two\n:   indented *definition*\n\n    code inside\n",
	"see https://example.com/path?q=1&r=2. and http://a.b/c_(d) or (https://x.org/y) or ftp://f.example.net\n",
	"www.example.com/a, and www.example.org! and mail me at someone@example.com. or a-b@c.d_\n",
	"https://example.com/&amp; and https://example.com/&amp x; [label https://in.label] *https://em.example.com*\n",
	"no link: http:/broken www.x and `https://in.code` and <https://angle.example>\n",
	"~~https://struck.example.com~~ - [ ] https://task.example.com\n",
}

func TestParsesAsGoldmarksExtensions(t *testing.T) {
	theirs := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()
	ours := goldmark.New(goldmark.WithParserOptions(gfm.Options()...)).Parser()
	inputs := append([]string{}, cases...)
	for _, f := range []string{"../testdata/fixture.md", "../testdata/short.md", "../testdata/tabs.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	for i, in := range inputs {
		src := []byte(in)
		want := dump(theirs.Parse(text.NewReader(src)), src)
		got := dump(ours.Parse(text.NewReader(src)), src)
		if got != want {
			t.Errorf("input %d %q:\ngot\n%s\nwant (goldmark's extensions)\n%s", i, in, got, want)
		}
		if i < len(cases) && !strings.Contains(want, "[ext]") {
			t.Errorf("input %d builds none of the extensions' nodes:\n%s", i, want)
		}
	}
}

// dump writes the tree one node a line: its kind (with "[ext]" marking a
// node one of the extensions made, for the check above) and what the
// parsers decided.
func dump(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Kind())
		switch v := n.(type) {
		case *east.Table:
			fmt.Fprintf(&b, " [ext] %v", v.Alignments)
		case *east.TableCell:
			fmt.Fprintf(&b, " %v", v.Alignment)
		case *east.Strikethrough:
			b.WriteString(" [ext]")
		case *east.TaskCheckBox:
			fmt.Fprintf(&b, " [ext] checked=%v", v.IsChecked)
		case *east.DefinitionList, *east.DefinitionTerm, *east.DefinitionDescription:
			b.WriteString(" [ext]")
		case *ast.AutoLink:
			fmt.Fprintf(&b, " [ext] %q %q type=%v", v.URL(src), v.Label(src), v.AutoLinkType)
		case *ast.Text:
			fmt.Fprintf(&b, " %q", v.Segment.Value(src))
		}
		if n.Type() == ast.TypeBlock {
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				fmt.Fprintf(&b, " %q", seg.Value(src))
			}
		}
		b.WriteString("\n")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// TestExtensionPackageNotLinked checks that the agent's binary does not link
// goldmark's extension package, whose init compiles linkify's expressions.
func TestExtensionPackageNotLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/agent-dev/agent").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	sawGoldmark := false
	for _, d := range deps {
		switch d {
		case "github.com/yuin/goldmark":
			sawGoldmark = true
		case "github.com/yuin/goldmark/extension":
			t.Errorf("the agent links %s", d)
		}
	}
	if !sawGoldmark {
		t.Errorf("goldmark is not among the dependencies: %q", deps)
	}
}
