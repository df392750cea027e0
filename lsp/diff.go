package lsp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Diagnostic is one error or warning of a file, for people and the model.
type Diagnostic struct {
	// Path is the file's path relative to the session's directory
	// (absolute when outside it).
	Path string `json:"path"`
	// Line and Column are 1-based; Column counts characters.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Source is the tool that reported it ("compiler", "ts"), Code its
	// code; both may be empty.
	Source string `json:"source,omitempty"`
	Code   string `json:"code,omitempty"`
}

// String is d as "path:line:col: severity: message (source code)".
func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Column, d.Severity, d.Message)
	if tag := strings.TrimSpace(d.Source + " " + d.Code); tag != "" {
		s += " (" + tag + ")"
	}
	return s
}

// severity is the name of an LSP severity, "" for information and hints
// (never reported). A missing severity is an error (the specification
// leaves it to the client).
func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case 0, protocol.SeverityError:
		return "error"
	case protocol.SeverityWarning:
		return "warning"
	}
	return ""
}

// lineMap maps the lines of a file before a change to its lines after:
// lines before the first changed one keep their number, lines after the
// last changed one move by the change's difference in lines, and the
// lines between (the changed region) map to none.
type lineMap struct {
	prefix           int // lines equal at the start
	oldEnd, newEnd   int // first line after the changed region, before and after
	oldLines, newLen int
}

// newLineMap compares the texts before and after a change.
func newLineMap(before, after string) lineMap {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return lineMap{prefix: p, oldEnd: len(a) - s, newEnd: len(b) - s, oldLines: len(a), newLen: len(b)}
}

// old maps a line (0-based) of the text before to the text after; ok is
// false for a line of the changed region.
func (m lineMap) old(line int) (int, bool) {
	switch {
	case line < m.prefix:
		return line, true
	case line >= m.oldEnd:
		return line + m.newEnd - m.oldEnd, true
	}
	return 0, false
}

// changed reports whether a line (0-based) of the text after is in the
// changed region.
func (m lineMap) changed(line int) bool { return line >= m.prefix && line < m.newEnd }

// introduced returns the diagnostics of after that before does not have,
// by severity, message and position: positions of before move by lines
// (nil: the file did not change), and in the changed region a diagnostic
// is old when one with the same severity and message was in the region
// before. Information and hints are left out.
func introduced(before, after []protocol.Diagnostic, lines *lineMap) []protocol.Diagnostic {
	type key struct {
		sev       string
		msg       string
		line, col int // -1, -1: in the changed region
	}
	count := map[key]int{}
	for _, d := range before {
		k := key{severity(d.Severity), d.Message, int(d.Range.Start.Line), int(d.Range.Start.Character)}
		if lines != nil {
			if l, ok := lines.old(k.line); ok {
				k.line = l
			} else {
				k.line, k.col = -1, -1
			}
		}
		count[k]++
	}
	var out []protocol.Diagnostic
	for _, d := range after {
		sev := severity(d.Severity)
		if sev == "" {
			continue
		}
		k := key{sev, d.Message, int(d.Range.Start.Line), int(d.Range.Start.Character)}
		if lines != nil && lines.changed(k.line) {
			k.line, k.col = -1, -1
		}
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// lineOf returns line n (0-based) of text, without its end of line.
func lineOf(text string, n int) string {
	for i := 0; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r")
}

// column turns an LSP character offset on line (UTF-8 bytes or UTF-16
// units) into a 1-based column in characters.
func column(line string, char uint32, utf8Units bool) int {
	col, units := 1, uint32(0)
	for _, r := range line {
		if units >= char {
			break
		}
		if utf8Units {
			units += uint32(utf8.RuneLen(r))
		} else {
			units += uint32(utf16.RuneLen(r))
		}
		col++
	}
	return col
}

// character turns a 1-based column in characters on line into an LSP
// character offset (UTF-8 bytes or UTF-16 units).
func character(line string, col int, utf8Units bool) uint32 {
	var units uint32
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		if utf8Units {
			units += uint32(utf8.RuneLen(r))
		} else {
			units += uint32(utf16.RuneLen(r))
		}
		i++
	}
	return units
}

// sortDiagnostics orders ds errors first, then by path and position.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if a.Severity != b.Severity {
			if a.Severity == "error" {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
