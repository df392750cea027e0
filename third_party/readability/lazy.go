package readability

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled at its first use, not in the
// package's init: agent's patch (third_party/readability/PATCH.md), so
// that a process that reads no web page does not compile the parser's
// expressions at its start. It has the methods of *regexp.Regexp the
// parser calls.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// lazyMustCompile is regexp.MustCompile at the expression's first use.
func lazyMustCompile(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }

func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}

func (l *lazyRegexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.get().ReplaceAllStringFunc(src, repl)
}

func (l *lazyRegexp) Split(s string, n int) []string { return l.get().Split(s, n) }
