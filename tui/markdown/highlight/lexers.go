package highlight

import (
	"embed"
	"fmt"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// files holds the lexers in chroma's XML format: chroma v2.14.0's own files, unmodified, and go.xml, a translation
// of chroma's Go lexer (see lexers/README.md).
//
//go:embed lexers/*.xml
var files embed.FS

// compiled is the lazily built lexer of one entry of lexerFiles.
type compiled struct {
	once  sync.Once
	lexer chroma.Lexer
	err   error
}

// cache holds the lexers built so far, one slot per entry of lexerFiles. It is the package's only state: each
// slot is written once, under its sync.Once, and only read afterwards. Nothing is built before a lexer is first
// asked for.
var cache [len(lexerFiles)]compiled

// lexerFor returns the lexer of lexerFiles[i], building it on first use: its configuration is read, its rules are
// compiled and checked by lexing an empty text, and the lexers its rules call by name get their own instances in a
// registry private to it. An error (a file that does not parse, a rule that does not compile) is kept, so a broken
// lexer costs one attempt.
func lexerFor(i int) (chroma.Lexer, error) {
	c := &cache[i]
	c.once.Do(func() { c.lexer, c.err = build(i) })
	return c.lexer, c.err
}

// build makes the lexer of lexerFiles[i] and those it uses, registered together in a new chroma.LexerRegistry.
func build(i int) (l chroma.Lexer, err error) {
	defer func() {
		if p := recover(); p != nil {
			l, err = nil, fmt.Errorf("building lexer %s: %v", lexerFiles[i].file, p)
		}
	}()
	reg := chroma.NewLexerRegistry()
	var load func(j int, depth int) (chroma.Lexer, error)
	loaded := map[int]chroma.Lexer{}
	load = func(j, depth int) (chroma.Lexer, error) {
		if l, ok := loaded[j]; ok {
			return l, nil
		}
		if depth > 4 {
			return nil, fmt.Errorf("lexer %s: lexers used too deeply", lexerFiles[j].file)
		}
		l, err := newLexer("lexers/" + lexerFiles[j].file)
		if err != nil {
			return nil, fmt.Errorf("reading lexer %s: %w", lexerFiles[j].file, err)
		}
		loaded[j] = reg.Register(l)
		for _, u := range lexerFiles[j].uses {
			if _, err := load(u, depth+1); err != nil {
				return nil, err
			}
		}
		if err := warm(l); err != nil {
			return nil, fmt.Errorf("compiling lexer %s: %w", lexerFiles[j].file, err)
		}
		return l, nil
	}
	return load(i, 0)
}

// warm compiles l's rules by lexing an empty text, so that an error shows now rather than on every use.
func warm(l chroma.Lexer) error {
	it, err := l.Tokenise(nil, "")
	if err != nil {
		return err
	}
	for t := it(); t != chroma.EOF; t = it() {
	}
	return nil
}
