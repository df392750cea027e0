package scriptedlsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// The markers the server reads in a document's text.
const (
	markError  = "ERROR:"
	markWarn   = "WARN:"
	markBreaks = "BREAKS "
	markNeeds  = "NEEDS "
	markDef    = "def "
)

// col is the UTF-16 length of s, LSP's default unit for a column.
func col(s string) uint32 { return uint32(len(utf16.Encode([]rune(s)))) }

// lineRange is line n from byte column from to the line's end.
func lineRange(n int, line string, from int) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(n), Character: col(line[:from])},
		End:   protocol.Position{Line: uint32(n), Character: col(line)},
	}
}

// markerDiagnostics are the ERROR: and WARN: diagnostics of text.
func markerDiagnostics(text string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for _, m := range []struct {
			mark string
			sev  protocol.DiagnosticSeverity
		}{{markError, protocol.SeverityError}, {markWarn, protocol.SeverityWarning}} {
			if i := strings.Index(line, m.mark); i >= 0 {
				out = append(out, protocol.Diagnostic{
					Range:    lineRange(n, line, i),
					Severity: m.sev,
					Source:   "scriptedlsp",
					Message:  strings.TrimSpace(line[i+len(m.mark):]),
				})
			}
		}
	}
	return out
}

// breaks is one "BREAKS NAME: MSG" line: the file it names (a name in
// the same directory as the document holding it) and its message.
type breaks struct{ file, msg string }

// breaksOf are the BREAKS lines of text, in a document at path.
func breaksOf(path, text string) []breaks {
	var out []breaks
	for _, line := range strings.Split(text, "\n") {
		i := strings.Index(line, markBreaks)
		if i < 0 {
			continue
		}
		name, msg, ok := strings.Cut(line[i+len(markBreaks):], ":")
		if !ok || strings.TrimSpace(name) == "" {
			continue
		}
		out = append(out, breaks{filepath.Join(filepath.Dir(path), strings.TrimSpace(name)), strings.TrimSpace(msg)})
	}
	return out
}

// needsOf are the files the NEEDS lines of text (in a document at path)
// name, with their line: "NEEDS NAME" is an error on that line while
// NAME (in the same directory) is neither open nor on disk.
func needsOf(path, text string) []need {
	var out []need
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		i := strings.Index(line, markNeeds)
		if i < 0 {
			continue
		}
		if name := strings.TrimSpace(line[i+len(markNeeds):]); name != "" {
			out = append(out, need{filepath.Join(filepath.Dir(path), name), name, n, line, i})
		}
	}
	return out
}

// need is one NEEDS line.
type need struct {
	file, name string
	line       int
	text       string
	at         int
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordAt is the word (letters, digits, _) at LSP position p of text, or "".
func wordAt(text string, p protocol.Position) string {
	lines := strings.Split(text, "\n")
	if int(p.Line) >= len(lines) {
		return ""
	}
	runes := []rune(strings.TrimSuffix(lines[p.Line], "\r"))
	// Find the rune at UTF-16 column p.Character.
	i, c := 0, uint32(0)
	for i < len(runes) && c < p.Character {
		c += uint32(len(utf16.Encode(runes[i : i+1])))
		i++
	}
	if i >= len(runes) || !isWordRune(runes[i]) {
		if i > 0 && i <= len(runes) && isWordRune(runes[i-1]) {
			i-- // just after a word counts as on it
		} else {
			return ""
		}
	}
	start, end := i, i
	for start > 0 && isWordRune(runes[start-1]) {
		start--
	}
	for end < len(runes) && isWordRune(runes[end]) {
		end++
	}
	return string(runes[start:end])
}

// occurrence is one whole-word match of a word: its line and byte offset.
type occurrence struct {
	line   int
	at     int
	isDef  bool
	lineOf string
}

// occurrences are the whole-word matches of word in text.
func occurrences(text, word string) []occurrence {
	var out []occurrence
	for n, line := range strings.Split(text, "\n") {
		for off := 0; ; {
			i := strings.Index(line[off:], word)
			if i < 0 {
				break
			}
			i += off
			off = i + len(word)
			before, after := []rune(line[:i]), []rune(line[off:])
			if len(before) > 0 && isWordRune(before[len(before)-1]) || len(after) > 0 && isWordRune(after[0]) {
				continue
			}
			out = append(out, occurrence{n, i, strings.HasSuffix(line[:i], markDef), line})
		}
	}
	return out
}

// location of the occurrence of a word of n bytes in the file at uri.
func (o occurrence) location(uri protocol.DocumentURI, n int) protocol.Location {
	return protocol.Location{URI: uri, Range: protocol.Range{
		Start: protocol.Position{Line: uint32(o.line), Character: col(o.lineOf[:o.at])},
		End:   protocol.Position{Line: uint32(o.line), Character: col(o.lineOf[:o.at+n])},
	}}
}

// definitions are the words defined by "def WORD" lines of text, with
// their occurrence.
func definitions(text string) map[string]occurrence {
	out := map[string]occurrence{}
	for n, line := range strings.Split(text, "\n") {
		for off := 0; ; {
			i := strings.Index(line[off:], markDef)
			if i < 0 {
				break
			}
			at := off + i + len(markDef)
			off = at
			end := at
			for _, r := range line[at:] {
				if !isWordRune(r) {
					break
				}
				end += len(string(r))
			}
			if end > at {
				if _, seen := out[line[at:end]]; !seen {
					out[line[at:end]] = occurrence{n, at, true, line}
				}
			}
		}
	}
	return out
}

// file is a document the server knows: open, or read from the root.
type file struct {
	uri  protocol.DocumentURI
	text string
}

// files are the open documents (by URI) then the root directory's *.txt
// files that are not open (by name), each with its text.
func (s *server) files() []file {
	var out []file
	open := map[string]bool{}
	for _, uri := range s.openURIs() {
		out = append(out, file{uri, s.docs[uri].text})
		if p, err := uri.Path(); err == nil {
			open[p] = true
		}
	}
	if s.root == "" {
		return out
	}
	names, _ := filepath.Glob(filepath.Join(s.root, "*.txt"))
	sort.Strings(names)
	for _, p := range names {
		if open[p] {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, file{protocol.URIFromPath(p), string(b)})
		}
	}
	return out
}

// openURIs are the open documents' URIs, sorted.
func (s *server) openURIs() []protocol.DocumentURI {
	uris := make([]protocol.DocumentURI, 0, len(s.docs))
	for uri := range s.docs {
		uris = append(uris, uri)
	}
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	return uris
}

// textOf is the text of the document at uri: open, or read from disk
// ("" when it cannot be read).
func (s *server) textOf(uri protocol.DocumentURI) string {
	if d, ok := s.docs[uri]; ok {
		return d.text
	}
	p, err := uri.Path()
	if err != nil {
		return ""
	}
	b, _ := os.ReadFile(p)
	return string(b)
}

// symbols are the "def WORD" symbols of text at uri, in line order.
func symbols(uri protocol.DocumentURI, text string) []protocol.SymbolInformation {
	defs := definitions(text)
	out := make([]protocol.SymbolInformation, 0, len(defs))
	for name, o := range defs {
		out = append(out, protocol.SymbolInformation{
			Name: name, Kind: protocol.Function, Location: o.location(uri, len(name)),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Location.Range.Start, out[j].Location.Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return out
}

// answer answers the requests of ModeNormal that read documents:
// definition, references, hover, documentSymbol and workspace/symbol;
// any other method is CodeMethodNotFound.
func (s *server) answer(method string, raw json.RawMessage) (any, error) {
	bad := func(err error) error {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: method + ": " + err.Error()}
	}
	switch method {
	case "textDocument/definition", "textDocument/hover":
		var p protocol.TextDocumentPositionParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, bad(err)
		}
		word := wordAt(s.textOf(p.TextDocument.URI), p.Position)
		if word == "" {
			return nil, nil
		}
		if method == "textDocument/hover" {
			return protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: word + ": scripted hover"}}, nil
		}
		for _, f := range s.files() {
			if o, ok := definitions(f.text)[word]; ok {
				return o.location(f.uri, len(word)), nil
			}
		}
		return nil, nil
	case "textDocument/references":
		var p protocol.ReferenceParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, bad(err)
		}
		word := wordAt(s.textOf(p.TextDocument.URI), p.Position)
		out := []protocol.Location{}
		if word == "" {
			return out, nil
		}
		for _, f := range s.files() {
			for _, o := range occurrences(f.text, word) {
				if !o.isDef || p.Context.IncludeDeclaration {
					out = append(out, o.location(f.uri, len(word)))
				}
			}
		}
		return out, nil
	case "textDocument/documentSymbol":
		var p protocol.DocumentSymbolParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, bad(err)
		}
		return symbols(p.TextDocument.URI, s.textOf(p.TextDocument.URI)), nil
	case "workspace/symbol":
		var p protocol.WorkspaceSymbolParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, bad(err)
		}
		out := []protocol.SymbolInformation{}
		for _, f := range s.files() {
			for _, sym := range symbols(f.uri, f.text) {
				if strings.Contains(sym.Name, p.Query) {
					out = append(out, sym)
				}
			}
		}
		return out, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "scriptedlsp: no method " + method}
}
