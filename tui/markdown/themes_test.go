package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Each theme draws the same answer with the same text in colours of its own.
func TestEveryStyleDrawsTheSameTextInItsOwnColours(t *testing.T) {
	doc := "# Title\n\nSome `code` and a [link](https://example.com).\n\n```go\nfunc main() { fmt.Println(\"hi\") }\n```\n"
	seen := map[string]Style{}
	var text string
	for s := Dark; s <= HighContrast; s++ {
		out := testRenderer(s).Render(doc, 60)
		if text == "" {
			text = ansi.Strip(out)
		} else if got := ansi.Strip(out); got != text {
			t.Errorf("style %d draws other text:\n%s\nwant\n%s", s, got, text)
		}
		if other, dup := seen[out]; dup {
			t.Errorf("styles %d and %d draw alike", other, s)
		}
		seen[out] = s
	}
	if out := testRenderer(Style(99)).Render(doc, 60); out != testRenderer(Dark).Render(doc, 60) {
		t.Error("an unknown style does not draw as Dark")
	}
}

func TestTrueColourSGR(t *testing.T) {
	a := attrs{fg: rgb(0xBD93F9), bg: rgb(0x010203), bold: true}
	if got, want := a.sgr(), "\x1b[1;38;2;189;147;249;48;2;1;2;3m"; got != want {
		t.Errorf("sgr = %q, want %q", got, want)
	}
	if got := colour(203).sgr(); !strings.Contains(got, "38;5;203") {
		t.Errorf("256-colour sgr = %q", got)
	}
}
