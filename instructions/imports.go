package instructions

import (
	"path/filepath"
	"regexp"
	"strings"
)

// importRef is an @path reference as Claude Code reads one: an @ at the
// start of a line or after white space, then the path (a space in it
// escaped as "\ ").
var importRef = regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`)

// imports returns the absolute paths text imports with @path, in order:
// relative to dir (the importing file's directory), absolute, or under
// the home directory (@~/...). References inside fenced code blocks and
// inline code spans are not imports, as in Claude Code. A reference that
// ends in punctuation ("see @README.md.") is read without it.
func (r *reader) imports(text, dir string) []string {
	var out []string
	for _, line := range proseLines(text) {
		for _, m := range importRef.FindAllStringSubmatch(line, -1) {
			p := strings.ReplaceAll(m[1], `\ `, " ")
			p = strings.TrimRight(p, ".,;:!?)]}'\"")
			if p == "" || strings.HasPrefix(p, "@") {
				continue
			}
			switch {
			case strings.HasPrefix(p, "~/"):
				if r.o.Home == "" {
					continue
				}
				p = filepath.Join(r.o.Home, p[2:])
			case filepath.IsAbs(p):
				p = filepath.Clean(p)
			default:
				p = filepath.Join(dir, p)
			}
			out = append(out, p)
		}
	}
	return out
}

// inlineCode matches a code span: text between single backticks, or between
// double ones when it holds a backtick.
var inlineCode = regexp.MustCompile("``[^`]*(?:`[^`]+)*``|`[^`]*`")

// proseLines are text's lines outside fenced code blocks, each with its
// inline code spans blanked.
func proseLines(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		out = append(out, inlineCode.ReplaceAllString(line, " "))
	}
	return out
}
