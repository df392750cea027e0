package highlight

import (
	"path"
	"strings"
)

// lexerFile is one embedded lexer: its file under lexers/ and the lexers its rules call by name (chroma's <using
// lexer="..."/>), as indexes into lexerFiles.
type lexerFile struct {
	file string
	uses []int
}

// glob is one of a lexer's file-name patterns ("*.go", "Makefile"), as path.Match reads them.
type glob struct {
	pattern string
	lexer   int // index into lexerFiles
}

// find returns the index in lexerFiles of the lexer lang names, or -1. lang is matched as chroma's registry matches
// a name, but case-insensitively throughout: a lexer's name or alias ("Go", "golang", "c++"); else the first of the
// file-name patterns, in the order of globs (higher priority first, then by lexer name), that matches "x."+lang
// (an extension: "py", "yml") or lang's last path element ("main.go", "Dockerfile"), case-sensitively first and
// then ignoring case.
func find(lang string) int {
	if lang == "" {
		return -1
	}
	if i := byName(strings.ToLower(lang)); i >= 0 {
		return i
	}
	ext, base := "x."+lang, path.Base(lang)
	for _, g := range globs {
		if match(g.pattern, ext) || match(g.pattern, base) {
			return g.lexer
		}
	}
	ext, base = strings.ToLower(ext), strings.ToLower(base)
	for _, g := range globs {
		p := strings.ToLower(g.pattern)
		if match(p, ext) || match(p, base) {
			return g.lexer
		}
	}
	return -1
}

// match reports whether name matches pattern; a malformed pattern matches nothing (the table's patterns are
// checked by TestEveryLexerCompiles).
func match(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return ok && err == nil
}
