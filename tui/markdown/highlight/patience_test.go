package highlight

import (
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2"
)

// chroma gives each compiled rule 250 ms per match, after which a character is coloured as an error: patience
// raises every rule's limit to MatchLimit, in every state, and leaves no trace of its own rule.
func TestPatienceRaisesEveryRulesMatchLimitAndRemovesItself(t *testing.T) {
	compiled := func(pattern string) *chroma.CompiledRule {
		re := regexp2.MustCompile(pattern, 0)
		re.MatchTimeout = 250 * time.Millisecond
		return &chroma.CompiledRule{Rule: chroma.Rule{Pattern: pattern}, Regexp: re}
	}
	first, str := compiled(`x`), compiled(`"[^"]*"`)
	own := compiled(`(?!)`)
	own.Mutator = patience{}
	rules := chroma.CompiledRules{"root": {first, own}, "string": {str}}
	if err := (patience{}).MutateLexer(rules, "root", 1); err != nil {
		t.Fatal(err)
	}
	if len(rules["root"]) != 1 || rules["root"][0] != first {
		t.Fatalf("root state after patience: %d rules, want only the file's one", len(rules["root"]))
	}
	for name, r := range map[string]*chroma.CompiledRule{"root": first, "string": str} {
		if r.Regexp.MatchTimeout != MatchLimit {
			t.Errorf("%s rule's match limit is %v, want %v", name, r.Regexp.MatchTimeout, MatchLimit)
		}
	}
}

// Every embedded lexer is built with patience as the last rule of its "root" state (where chroma's compiling finds and
// applies it; TestGoLexerMatchesChroma shows the lexing is unchanged).
func TestEveryLexerIsBuiltWithPatience(t *testing.T) {
	for i := range lexerFiles {
		l, err := lexerFor(i)
		if err != nil {
			t.Fatalf("%s: %v", lexerFiles[i].file, err)
		}
		rules, err := l.(*chroma.RegexLexer).Rules()
		if err != nil {
			t.Fatal(err)
		}
		last := rules["root"][len(rules["root"])-1]
		if _, ok := last.Mutator.(patience); !ok {
			t.Errorf("%s: built without patience", lexerFiles[i].file)
		}
	}
}
