package rules

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// wordCases are word sources and whether their value is static.
var wordCases = []struct {
	src   string
	exact bool
	val   string
}{
	{`rm`, true, "rm"},
	{`\rm`, true, "rm"},
	{`'r'm`, true, "rm"},
	{`"r"'m'`, true, "rm"},
	{`r\m`, true, "rm"},
	{"r\\\nm", true, "rm"},
	{`"a\$b\q\"\\"`, true, `a$b\q"\`},
	{"\"a\\\nb\"", true, "ab"},
	{`'a\b'`, true, `a\b`},
	{`a\ b`, true, "a b"},
	{`""`, true, ""},
	{`$'rm'`, true, "rm"},
	{`$'\x72m'`, false, ""},
	{`$"rm"`, false, ""},
	{`"\!"`, true, `\!`},
	{`a\*`, true, "a*"},
	{`"*"`, true, "*"},
	{`'{a,b}'`, true, "{a,b}"},
	{`a{b`, true, "a{b"},
	{`{}`, true, "{}"},
	{`[`, true, "["},
	{`a]`, true, "a]"},
	{`x=1`, true, "x=1"},
	{`a\{b,c}`, true, "a{b,c}"},
	{`{a,"b"}`, false, ""},
	{`{a..c}`, false, ""},
	{`a*`, false, ""},
	{`a?`, false, ""},
	{`[ab]`, false, ""},
	{`~`, false, ""},
	{`a=~`, false, ""},
	{`$x`, false, ""},
	{`"$x"`, false, ""},
	{`$(x)`, false, ""},
	{`@(a)`, false, ""},
	{`<(x)`, false, ""},
}

func TestEvalWord(t *testing.T) {
	bash, bashErr := exec.LookPath("bash")
	for _, tc := range wordCases {
		src := "printf '%s\\0' " + tc.src
		f, err := parse(src, syntax.LangBash)
		if err != nil {
			t.Fatalf("parse %q: %v", tc.src, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[2]
		got := evalWord(src, w)
		if got.exact != tc.exact || (tc.exact && got.val != tc.val) {
			t.Errorf("evalWord(%q) = %q exact=%v, want %q exact=%v", tc.src, got.val, got.exact, tc.val, tc.exact)
		}
		if !got.exact || bashErr != nil {
			continue
		}
		// What bash makes of the word: exactly one field, the same value.
		out, err := exec.Command(bash, "--norc", "--noprofile", "-c", src).Output()
		if err != nil {
			t.Fatalf("bash %q: %v", src, err)
		}
		if fields := bytes.Split(out, []byte{0}); len(fields) != 2 || string(fields[0]) != got.val {
			t.Errorf("bash reads %q as %q, evalWord as %q", tc.src, out, got.val)
		}
	}
}

func TestDisplayValue(t *testing.T) {
	for v, want := range map[string]string{"ls": "ls", "a b": "'a b'", "": "''", "[": "[", "it's": `"it's"`, "a\nb": "$'a\\nb'"} {
		if got := displayValue(v); got != want {
			t.Errorf("displayValue(%q) = %s, want %s", v, got, want)
		}
	}
	if got := oneLine("a\nb\rc"); strings.ContainsAny(got, "\r\n") {
		t.Errorf("oneLine = %q", got)
	}
}
