package highlight

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// sgrRE matches the SGR sequences Lines writes.
var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// plainText is line with its SGR sequences removed.
func plainText(line string) string { return sgrRE.ReplaceAllString(line, "") }

const goSample = `package main

import "fmt"

// greet says hello.
func greet(name string) string {
	return fmt.Sprintf("hello, %s", name) + ` + "`raw`" + `
}
`

// styleOf returns the SGR sequence in force where word first appears in lines ("" when it is plain).
func styleOf(t *testing.T, lines []string, word string) string {
	t.Helper()
	for _, line := range lines {
		i := strings.Index(line, word)
		if i < 0 {
			continue
		}
		before := line[:i]
		open := strings.LastIndex(before, "\x1b[")
		if open < 0 || strings.HasPrefix(before[open:], reset) {
			return ""
		}
		return sgrRE.FindString(before[open:])
	}
	t.Fatalf("%q not found in %q", word, lines)
	return ""
}

func TestGoCodeIsColouredLineByLine(t *testing.T) {
	for _, dark := range []Scheme{Dark, Light} {
		lines, ok := LinesWithin(goSample, "go", dark, Budget{})
		if !ok {
			t.Fatal("go: ok = false")
		}
		in := strings.Split(goSample, "\n")
		if len(lines) != len(in) {
			t.Fatalf("%d lines for %d lines of code", len(lines), len(in))
		}
		for i, line := range lines {
			if strings.Contains(line, "\x1b[") && !strings.HasSuffix(line, reset) {
				t.Errorf("line %d leaves a style open: %q", i, line)
			}
			if got := plainText(line); got != in[i] {
				t.Errorf("line %d without SGR = %q, want %q", i, got, in[i])
			}
		}
		plain := styleOf(t, lines, "main")
		seen := map[string]string{"plain text": plain}
		for _, word := range []string{"func", "return", `"fmt"`, "// greet", "`raw`"} {
			s := styleOf(t, lines, word)
			if s == "" || s == plain {
				t.Errorf("dark=%v: %s has style %q, the same as plain text's %q", dark, word, s, plain)
			}
			seen[word] = s
		}
		if seen["func"] == seen[`"fmt"`] || seen[`"fmt"`] == seen["// greet"] {
			t.Errorf("dark=%v: keywords, strings and comments should differ: %q", dark, seen)
		}
	}
}

func TestRunsMergeAndBlanksStayPlain(t *testing.T) {
	lines, ok := LinesWithin("x := 1 + 2", "go", Dark, Budget{})
	if !ok {
		t.Fatal("ok = false")
	}
	// ":=" and "+" are operators separated by other tokens; "1" and "2" numbers. No SGR wraps a bare space.
	if strings.Contains(lines[0], "m \x1b[m") || strings.Contains(lines[0], "\x1b[38;2;110;239;192m \x1b") {
		t.Errorf("a blank run is styled: %q", lines[0])
	}
	lines, _ = LinesWithin("a.b.c", "go", Dark, Budget{})
	if n := strings.Count(lines[0], "\x1b[38"); n != 5 {
		t.Errorf("a.b.c: %d runs, want 5 (name, dot, name, dot, name): %q", n, lines[0])
	}
	lines, _ = LinesWithin("((((", "go", Dark, Budget{})
	if n := strings.Count(lines[0], "\x1b[38"); n != 1 {
		t.Errorf("((((: %d runs, want 1: %q", n, lines[0])
	}
}

func TestLanguageNames(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"go", "go.xml"}, {"Go", "go.xml"}, {"golang", "go.xml"}, {"GOLANG", "go.xml"},
		{"main.go", "go.xml"}, {"cmd/agent/main.go", "go.xml"},
		{"py", "python.xml"}, {"python", "python.xml"}, {"python3", "python.xml"}, {"setup.py", "python.xml"},
		{"sh", "bash.xml"}, {"bash", "bash.xml"}, {"zsh", "bash.xml"}, {"shell", "bash.xml"}, {"console", "bash_session.xml"},
		{"yml", "yaml.xml"}, {"yaml", "yaml.xml"}, {"docker-compose.yml", "yaml.xml"},
		{"c++", "c++.xml"}, {"cpp", "c++.xml"}, {"cc", "c++.xml"}, {"c", "c.xml"}, {"h", "c.xml"}, {"cs", "c#.xml"}, {"csharp", "c#.xml"},
		{"ts", "typescript.xml"}, {"tsx", "typescript.xml"}, {"js", "javascript.xml"}, {"jsx", "react.xml"}, {"mjs", "javascript.xml"},
		{"rs", "rust.xml"}, {"rust", "rust.xml"}, {"json", "json.xml"}, {"diff", "diff.xml"}, {"patch", "diff.xml"},
		{"Dockerfile", "docker.xml"}, {"dockerfile", "docker.xml"}, {"Makefile", "makefile.xml"}, {"make", "makefile.xml"},
		{"tf", "terraform.xml"}, {"hcl", "hcl.xml"}, {"proto", "protocol_buffer.xml"}, {"ps1", "powershell.xml"},
		{"rb", "ruby.xml"}, {"kt", "kotlin.xml"}, {"toml", "toml.xml"}, {"ini", "ini.xml"}, {"sql", "sql.xml"},
		{"html", "html.xml"}, {"xml", "xml.xml"}, {"svg", "xml.xml"}, {"css", "css.xml"}, {"hs", "haskell.xml"},
		{"ex", "elixir.xml"}, {"exs", "elixir.xml"}, {"zig", "zig.xml"}, {"scala", "scala.xml"}, {"swift", "swift.xml"},
		{"java", "java.xml"}, {"lua", "lua.xml"}, {"php", "php.xml"},
		{"nosuchlang", ""}, {"", ""}, {"text", ""}, {"markdown", ""}, {"[", ""}, {"*", ""},
	} {
		got := ""
		if i := find(tc.lang); i >= 0 {
			got = lexerFiles[i].file
		}
		if got != tc.want {
			t.Errorf("find(%q) = %q, want %q", tc.lang, got, tc.want)
		}
		_, ok := LinesWithin("x", tc.lang, Dark, Budget{})
		if ok != (tc.want != "") {
			t.Errorf("Lines(_, %q) ok = %v", tc.lang, ok)
		}
	}
}

func TestUnknownLanguageIsNotHighlighted(t *testing.T) {
	if lines, ok := Lines("func main() {}", "nosuchlang", Dark); ok || lines != nil {
		t.Errorf("nosuchlang: %q, %v; want nil, false", lines, ok)
	}
	if lines, ok := Lines("func main() {}", "", Light); ok || lines != nil {
		t.Errorf("empty language: %q, %v; want nil, false", lines, ok)
	}
}

func TestLineCountFollowsTheCode(t *testing.T) {
	for _, code := range []string{"", "\n", "x", "x\n", "x\n\n", "\n\nx", "// c", "/* a\nb */\n", "`a\nb`"} {
		lines, ok := LinesWithin(code, "go", Dark, Budget{})
		if !ok {
			t.Fatalf("%q: ok = false", code)
		}
		want := strings.Split(code, "\n")
		if len(lines) != len(want) {
			t.Errorf("%q: %d lines, want %d: %q", code, len(lines), len(want), lines)
			continue
		}
		for i := range lines {
			if plainText(lines[i]) != want[i] {
				t.Errorf("%q line %d = %q, want %q", code, i, plainText(lines[i]), want[i])
			}
		}
	}
}

func TestControlCharactersCannotReachTheTerminal(t *testing.T) {
	code := "x := \"\x1b[2J\"\r\ny := 1\rz\x07\x00\x7f\u009b31m" + string([]byte{0xff}) + "\r"
	for _, lang := range []string{"go", "python", "bash", "diff"} {
		lines, ok := LinesWithin(code, lang, Dark, Budget{})
		if !ok {
			t.Fatalf("%s: ok = false", lang)
		}
		if len(lines) != 2 {
			t.Fatalf("%s: %d lines, want 2: %q", lang, len(lines), lines)
		}
		for i, line := range lines {
			rest := plainText(line)
			for _, r := range rest {
				if r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f {
					t.Errorf("%s line %d carries control %U: %q", lang, i, r, line)
				}
			}
			if strings.ContainsRune(rest, 0x1b) || strings.Contains(rest, "\r") {
				t.Errorf("%s line %d: %q", lang, i, line)
			}
		}
		if got, want := plainText(lines[0]), "x := \"\uFFFD[2J\""; got != want {
			t.Errorf("%s line 0 = %q, want %q", lang, got, want)
		}
		if got, want := plainText(lines[1]), "y := 1 z\uFFFD\uFFFD\uFFFD\uFFFD31m\uFFFD"; got != want {
			t.Errorf("%s line 1 = %q, want %q", lang, got, want)
		}
	}
}

func TestOversizedCodeIsNotHighlighted(t *testing.T) {
	// A raw string is one token, so the largest code allowed lexes fast.
	code := "`" + strings.Repeat("x", maxCode-2) + "`"
	if _, ok := LinesWithin(code, "go", Dark, Budget{}); !ok {
		t.Errorf("%d bytes: ok = false", len(code))
	}
	if lines, ok := LinesWithin(code+"\n", "go", Dark, Budget{}); ok || lines != nil {
		t.Errorf("%d bytes: ok = %v", len(code)+1, ok)
	}
}

func TestDarkAndLightDiffer(t *testing.T) {
	dark, _ := LinesWithin(goSample, "go", Dark, Budget{})
	light, _ := LinesWithin(goSample, "go", Light, Budget{})
	for _, word := range []string{"func", "greet", `"fmt"`, "// greet", "main"} {
		if d, l := styleOf(t, dark, word), styleOf(t, light, word); d == l {
			t.Errorf("%s: dark and light both %q", word, d)
		}
	}
	again, _ := LinesWithin(goSample, "go", Dark, Budget{})
	if strings.Join(again, "\n") != strings.Join(dark, "\n") {
		t.Error("two calls gave different output")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	resetCache()
	done := make(chan []string)
	for range 8 {
		go func() {
			lines, _ := LinesWithin(goSample, "go", Dark, Budget{})
			done <- lines
		}()
	}
	first := <-done
	for range 7 {
		if got := <-done; strings.Join(got, "\n") != strings.Join(first, "\n") {
			t.Error("concurrent calls disagree")
		}
	}
}

// The budget is measured on the clock it is given: a clock that stands still never runs out, one that moves an
// hour at each look runs out at the first look past the start, and the code is then not highlighted.
func TestLexingStopsWhenItsBudgetRunsOut(t *testing.T) {
	code := strings.Repeat("x := a + b * c // sum\n", 50)
	still := time.Unix(0, 0)
	if _, ok := LinesWithin(code, "go", Dark, Budget{Limit: time.Millisecond, Now: func() time.Time { return still }}); !ok {
		t.Error("a clock that stands still ran out of time")
	}
	var looks int
	fast := func() time.Time {
		looks++
		return still.Add(time.Duration(looks) * time.Hour)
	}
	if lines, ok := LinesWithin(code, "go", Dark, Budget{Limit: time.Minute, Now: fast}); ok || lines != nil {
		t.Errorf("past its budget: ok %v, %d lines", ok, len(lines))
	}
	if looks != 2 {
		t.Errorf("the clock was read %d times, want twice (the start, then the first check)", looks)
	}
	if _, ok := LinesWithin(code, "go", Dark, Budget{Now: fast}); !ok {
		t.Error("no limit, yet it ran out")
	}
}

// Every scheme colours Go code, and no two schemes colour it alike.
func TestEverySchemeColoursCodeItsOwnWay(t *testing.T) {
	seen := map[string]Scheme{}
	for s := Dark; s <= HighContrast; s++ {
		lines, ok := LinesWithin(goSample, "go", s, Budget{})
		if !ok {
			t.Fatalf("scheme %d: ok = false", s)
		}
		if styleOf(t, lines, "func") == styleOf(t, lines, `"fmt"`) {
			t.Errorf("scheme %d: keywords and strings look alike", s)
		}
		out := strings.Join(lines, "\n")
		if other, dup := seen[out]; dup {
			t.Errorf("schemes %d and %d colour code alike", other, s)
		}
		seen[out] = s
	}
}
