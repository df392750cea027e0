package highlight

import (
	"path"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"
)

// sample is a few lines most languages' lexers have something to say about.
const sample = `# comment
// comment
x = 1 + 2.5; y = "str" 'c'
if (a < b) { return f(x, [1, 2]) }
<tag attr="v">text</tag>
key: value
`

func TestEveryLexerCompiles(t *testing.T) {
	entries, err := files.ReadDir("lexers")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(lexerFiles) {
		t.Errorf("%d embedded files, %d in the index", len(entries), len(lexerFiles))
	}
	for i, e := range entries {
		if lexerFiles[i].file != e.Name() {
			t.Fatalf("index entry %d is %s, embedded file %s", i, lexerFiles[i].file, e.Name())
		}
		l, err := lexerFor(i)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		if _, ok := tokenise(l, sample, Budget{}); !ok {
			t.Errorf("%s: lexing the sample failed", e.Name())
		}
		lang := l.Config().Aliases[0]
		lines, ok := LinesWithin(sample, lang, Dark, Budget{})
		if !ok || len(lines) != strings.Count(sample, "\n")+1 {
			t.Errorf("%s (%s): ok=%v, %d lines", e.Name(), lang, ok, len(lines))
		}
	}
	for _, g := range globs {
		if _, err := path.Match(g.pattern, "x"); err != nil {
			t.Errorf("pattern %q of %s: %v", g.pattern, lexerFiles[g.lexer].file, err)
		}
	}
}

func TestLexersThatUseOthers(t *testing.T) {
	for _, tc := range []struct{ lang, code, word string }{
		{"dockerfile", "FROM golang\nRUN echo \"hi\" && ls\n", `"hi"`},
		{"html", "<script>var x = \"js\";</script>\n<style>p { color: red; }</style>\n", `"js"`},
		{"makefile", "all:\n\techo \"hi\"\n", `"hi"`},
		{"console", "$ echo \"hi\"\nhi\n", `"hi"`},
	} {
		lines, ok := LinesWithin(tc.code, tc.lang, Dark, Budget{})
		if !ok {
			t.Errorf("%s: ok = false", tc.lang)
			continue
		}
		if s := styleOf(t, lines, tc.word); s != darkPalette.literalString.sgr() {
			t.Errorf("%s: %s drawn %q, want the string colour (the nested lexer's)", tc.lang, tc.word, s)
		}
	}
}

// sgr is the SGR sequence that switches s on.
func (s style) sgr() string { return string(s.appendSGR(nil)) }

// TestGoLexerMatchesChroma checks that lexers/go.xml lexes Go as chroma's own Go lexer does (apart from raw
// strings' contents, which chroma lexes as a template).
func TestGoLexerMatchesChroma(t *testing.T) {
	code := goSample + `
const (
	a, b = 1e3, 0x1F
	c    = 'x' + '\n'
)

type T struct{ m map[string][]int }

/* block
   comment */
func (t *T) get(k string) (int, bool) {
	v, ok := t.m[k]
	if !ok || len(v) == 0 {
		return 0, false
	}
	for i := range v {
		v[i] <<= 2
	}
	go func() { defer recover() }()
	select {}
	return v[0], true
}
`
	ours, err := lexerFor(find("go"))
	if err != nil {
		t.Fatal(err)
	}
	want := coalesced(t, chromalexers.Get("go"), code)
	got := coalesced(t, ours, code)
	if len(got) != len(want) {
		t.Fatalf("%d tokens, chroma's Go lexer gives %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d: %v, chroma's Go lexer gives %v", i, got[i], want[i])
		}
	}
}

// coalesced lexes code with l and joins adjacent tokens of one type.
func coalesced(t *testing.T, l chroma.Lexer, code string) []chroma.Token {
	t.Helper()
	tokens, err := chroma.Tokenise(l, nil, code)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	for _, tok := range tokens {
		if n := len(out); n > 0 && out[n-1].Type == tok.Type {
			out[n-1].Value += tok.Value
			continue
		}
		out = append(out, tok)
	}
	return out
}
