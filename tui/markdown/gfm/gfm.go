// Package gfm holds goldmark's extensions for GitHub Flavored Markdown
// (tables, strikethrough, task lists, autolinks: linkify) and for definition
// lists, as parsers: copied from github.com/yuin/goldmark v1.7.17's
// extension package (MIT licence, LICENSE in this directory) without their
// HTML renderers, which tui/markdown never uses (it draws the syntax tree
// itself), and with their regular expressions compiled on first use. The
// extension package compiled them in its init, 0.5 ms of every start of the
// agent (--version, -p and the helpers included; BENCHMARKS.md, "The binary
// and package init"). The nodes are goldmark's own (extension/ast), so what
// the parsers build is what goldmark's extensions build.
package gfm

import (
	"regexp"
	"sync"

	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// Options returns the parser options that add what goldmark's extension.GFM
// and extension.DefinitionList add to a parser, at the same priorities.
func Options() []parser.Option {
	return []parser.Option{
		parser.WithInlineParsers(
			util.Prioritized(NewLinkifyParser(), 999),       // extension.Linkify
			util.Prioritized(NewStrikethroughParser(), 500), // extension.Strikethrough
			util.Prioritized(NewTaskCheckBoxParser(), 0),    // extension.TaskList
		),
		parser.WithParagraphTransformers(util.Prioritized(NewTableParagraphTransformer(), 200)), // extension.Table
		parser.WithASTTransformers(util.Prioritized(defaultTableASTTransformer, 0)),
		parser.WithBlockParsers( // extension.DefinitionList
			util.Prioritized(NewDefinitionListParser(), 101),
			util.Prioritized(NewDefinitionDescriptionParser(), 102),
		),
	}
}

// lazyRegexp returns a function that compiles expr on its first call and
// returns the one compiled expression on every call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
