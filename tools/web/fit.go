package web

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fit cuts text to at most max bytes. Without a prompt it keeps the
// beginning; with one, the page's sections (split at Markdown headings)
// that mention the prompt's words most are kept first, shown in the
// page's order with "[…]" where sections were left out. note says what
// was cut ("" when nothing was).
func fit(text, prompt string, max int) (string, string) {
	if len(text) <= max {
		return text, ""
	}
	words := promptWords(prompt)
	if len(words) > 0 {
		if out, ok := bySections(text, words, max); ok {
			return out, fmt.Sprintf("[The page has %d bytes of text; the %d bytes shown are the sections that mention %q most. Fetch again with another prompt for other parts.]", len(text), len(out), prompt)
		}
	}
	out := cutAt(text, max)
	return out, fmt.Sprintf("[Cut: the first %d of %d bytes of text are shown. Give a prompt saying what you look for to see the parts that mention it.]", len(out), len(text))
}

// cutAt returns text's first max bytes at most, ending on a line break
// when one is in the last quarter, never inside a character.
func cutAt(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := text[:max]
	for len(cut) > 0 && !utf8.ValidString(cut[len(cut)-min(len(cut), 3):]) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i > max*3/4 {
		cut = cut[:i]
	}
	return cut
}

// promptWords are the prompt's words of three letters or more, lowercase.
func promptWords(prompt string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

// bySections keeps the sections that mention words most within max bytes;
// ok is false when no section mentions any of them.
func bySections(text string, words []string, max int) (string, bool) {
	var secs []string
	start := 0
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		next := i + j + 1
		if strings.HasPrefix(text[next:], "#") && next > start {
			secs = append(secs, text[start:next])
			start = next
		}
		i = next
	}
	secs = append(secs, text[start:])
	type scored struct{ i, score int }
	var ranked []scored
	for i, s := range secs {
		low, n := strings.ToLower(s), 0
		for _, w := range words {
			n += strings.Count(low, w)
		}
		if n > 0 {
			ranked = append(ranked, scored{i, n})
		}
	}
	if len(ranked) == 0 {
		return "", false
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
	keep, used := map[int]bool{}, 0
	for _, r := range ranked {
		if used+len(secs[r.i]) <= max {
			keep[r.i], used = true, used+len(secs[r.i])
		}
	}
	var b strings.Builder
	if len(keep) == 0 {
		return cutAt(secs[ranked[0].i], max), true
	}
	gap := false
	for i, s := range secs {
		if !keep[i] {
			gap = true
			continue
		}
		if gap && b.Len() > 0 || gap && i > 0 {
			b.WriteString("[…]\n\n")
		}
		gap = false
		b.WriteString(s)
	}
	return strings.TrimSpace(b.String()), true
}
