package commands

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// Claude Code's substitutions: $ARGUMENTS whole, $ARGUMENTS[N] and $N
// from 0, named arguments, \$ for a literal dollar; an index past the last
// word stays as written, and arguments are never read again.
func TestSubstitute(t *testing.T) {
	c := Command{ArgumentNames: []string{"component", "from", "to"}, Dir: "/skills/migrate"}
	cases := []struct{ text, args, want string }{
		{"Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"},
		{"$ARGUMENTS[0] then $ARGUMENTS[1]", `"my widget" React`, "my widget then React"},
		{"$0 to $1 via $2", "a b", "a to b via $2"},
		{"eleventh: $10", "0 1 2 3 4 5 6 7 8 9 ten", "eleventh: ten"},
		{"Migrate $component from $from to $to.", "SearchBar React", "Migrate SearchBar from React to ."},
		{`costs \$1,000, not $1`, "x y", "costs $1,000, not y"},
		{`awk '{print \$1}' and \$ARGUMENTS and \$HOME`, "x", `awk '{print $1}' and $ARGUMENTS and \$HOME` + "\n\nARGUMENTS: x"},
		{"run ${CLAUDE_SKILL_DIR}/go.sh", "", "run /skills/migrate/go.sh"},
		{"$0 and $1", "$1 literal", "$1 and literal"},
		{"no placeholder", "a b", "no placeholder\n\nARGUMENTS: a b"},
		{"only $3", "solo", "only $3\n\nARGUMENTS: solo"},
		{"$ARGUMENTSX $componentName $", "a", "$ARGUMENTSX $componentName $\n\nARGUMENTS: a"},
	}
	for _, tc := range cases {
		if got := Substitute(c, tc.text, tc.args); got != tc.want {
			t.Errorf("Substitute(%q, %q) = %q, want %q", tc.text, tc.args, got, tc.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	cases := []struct {
		args string
		want []string
	}{
		{`a "b c" 'd e'`, []string{"a", "b c", "d e"}},
		{`say "it's" ""`, []string{"say", "it's", ""}},
		{`a\ b c\"d`, []string{"a b", `c"d`}},
		{`C:\src\main.go 'x\y'`, []string{`C:\src\main.go`, `x\y`}},
		{"  ", nil},
	}
	for _, c := range cases {
		if got := SplitWords(c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitWords(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// A command file in Claude Code's format: $ARGUMENTS[1] is the second
// word, and \$ keeps a dollar as text.
func TestCommandFileWithEscapedDollar(t *testing.T) {
	cmds, warnings := Load(Dir{Path: filepath.Join("testdata", "claude", "commands")})
	if len(cmds) != 1 || len(warnings) != 0 {
		t.Fatalf("commands %+v, warnings %q", cmds, warnings)
	}
	c := cmds[0]
	if c.Name != "price" || c.ArgumentHint != "[plan] [seats]" || !reflect.DeepEqual(c.AllowedTools, []string{"Read", "Grep"}) {
		t.Errorf("command %+v", c)
	}
	e, ok := (&Set{Commands: cmds}).Expand(context.Background(), `/price "team plus" 12`)
	want := "Quote plan team plus for 12 seats (12).\nThe base fee is $10 a month; write amounts as $ARGUMENTS would not expand."
	if !ok || e.Text != want {
		t.Errorf("Expand = %q, want %q", e.Text, want)
	}
}

// A plugin's commands are named under its namespace.
func TestLoadNamespace(t *testing.T) {
	cmds, _ := Load(Dir{Path: filepath.Join("testdata", "claude", "commands"), Namespace: "billing"})
	if len(cmds) != 1 || cmds[0].Name != "billing:price" {
		t.Errorf("commands %+v", cmds)
	}
}
