package highlight

import (
	"encoding/xml"
	"fmt"

	"github.com/alecthomas/chroma/v2"
)

// MatchLimit bounds one regular expression match of a lexer. chroma gives each match 250 ms of wall-clock time and
// then treats the rule as not matching, which colours a character as an error: on a machine busy enough to stall a
// match that long, the same code would be coloured differently. Lexing as a whole is bounded by the caller's Budget
// (checked between tokens); this limit stays only as a guard against one pathological match of untrusted code,
// ten times DefaultLimit, so that it is never what decides the colours. regexp2 measures it with a clock of its own
// that stops when no match needs it; before v1.12.0 a match begun after the clock had stopped for longer than the
// limit got a deadline from its stale reading, and the clock's first tick (100 ms later) put that deadline in the
// past: a code block lexed across that tick, on a machine slow enough (the race detector, a busy CI), had a
// character coloured as an error (TestThemeScreensGolden, 2026-11-29). v1.12.0 reads the time afresh then.
const MatchLimit = 10 * DefaultLimit

// patience is a chroma.LexerMutator on a rule that never matches, appended to a lexer's "root" state: when chroma
// compiles the lexer's rules it sets every compiled rule's match timeout to MatchLimit and removes its own rule, so
// the lexer's states are exactly its file's.
type patience struct{}

// Mutate does nothing: the rule that carries patience is gone before any text is lexed.
func (patience) Mutate(*chroma.LexerState) error { return nil }

// MutateLexer sets the match timeout of every compiled rule and removes rules[state][i], patience's own rule.
func (patience) MutateLexer(rules chroma.CompiledRules, state string, i int) error {
	for _, rs := range rules {
		for _, r := range rs {
			if r.Regexp != nil {
				r.Regexp.MatchTimeout = MatchLimit
			}
		}
	}
	rules[state] = append(rules[state][:i:i], rules[state][i+1:]...)
	return nil
}

// newLexer reads the lexer file at path (in files) and makes its lexer, with patience added to its rules. It
// returns an error when the file does not parse or has no "root" state.
func newLexer(path string) (*chroma.RegexLexer, error) {
	l, err := chroma.NewXMLLexer(files, path)
	if err != nil {
		return nil, err
	}
	f, err := files.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var file struct {
		chroma.Config
		Rules chroma.Rules `xml:"rules"`
	}
	if err := xml.NewDecoder(f).Decode(&file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := file.Rules["root"]; !ok {
		return nil, fmt.Errorf("%s: no \"root\" state", path)
	}
	file.Rules["root"] = append(file.Rules["root"], chroma.Rule{Pattern: `(?!)`, Mutator: patience{}})
	return chroma.NewLexer(l.Config(), func() chroma.Rules { return file.Rules })
}
