package lsp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"github.com/agent-dev/agent/tools"
)

//go:embed tool.md
var toolDescription string

const toolSchema = `{
  "type": "object",
  "properties": {
    "operation": {"type": "string", "enum": ["definition", "references", "implementation", "hover", "symbols", "workspace_symbols", "diagnostics"]},
    "path": {"type": "string", "description": "the file, relative to the working directory (workspace_symbols: any file of the language; diagnostics: omit for every file)"},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line of the symbol"},
    "symbol": {"type": "string", "description": "the symbol's name as written on that line"},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column, instead of symbol"},
    "query": {"type": "string", "description": "workspace_symbols: the name or part of it"}
  },
  "required": ["operation"],
  "additionalProperties": false
}`

// Bounds of the tool's output.
const (
	maxLocations = 50
	maxToolBytes = 8000
	// navWait bounds the wait for a server to start and answer.
	navWait = 20 * time.Second
)

// Tool is the read-only navigation tool (lsp) over m's servers.
func Tool(m *Manager) tools.Tool { return &navTool{m: m} }

type navTool struct{ m *Manager }

type navArgs struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Symbol    string `json:"symbol"`
	Column    int    `json:"column"`
	Query     string `json:"query"`
}

// Definition is the tool's.
func (t *navTool) Definition() tools.Definition {
	return tools.Definition{Name: "lsp", Description: toolDescription, Schema: json.RawMessage(toolSchema), ReadOnly: true,
		Effects: tools.ReadsWorkspace, Kind: tools.KindSearch, Summarize: summarize}
}

// summarize reads a call as "references path:line symbol".
func summarize(raw string) tools.Summary {
	var a navArgs
	if json.Unmarshal([]byte(raw), &a) != nil {
		return tools.DefaultSummary(raw)
	}
	title := a.Operation
	if a.Path != "" {
		title += " " + a.Path
		if a.Line > 0 {
			title += fmt.Sprintf(":%d", a.Line)
		}
	}
	if s := a.Symbol + a.Query; s != "" {
		title += " " + s
	}
	sum := tools.Summary{Title: tools.OneLine(title), Full: tools.PrettyJSON(raw)}
	if a.Path != "" {
		sum.Paths = []string{a.Path}
	}
	return sum
}

// Run answers one navigation question.
func (t *navTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a navArgs
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	if a.Operation == "diagnostics" {
		return tools.Result{Content: t.m.current(a.Path)}, nil
	}
	if a.Path == "" {
		return tools.Errorf("%s needs path: the file (workspace_symbols: any file of the language)", a.Operation), nil
	}
	ctx, cancel := context.WithTimeout(ctx, navWait)
	defer cancel()
	c, d, err := t.m.prepare(ctx, a.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	var out string
	switch a.Operation {
	case "symbols":
		out, err = t.symbols(ctx, c, d)
	case "workspace_symbols":
		if a.Query == "" {
			return tools.Errorf("workspace_symbols needs query: a name or part of it"), nil
		}
		out, err = t.workspaceSymbols(ctx, c, a.Query)
	case "definition", "references", "implementation", "hover":
		pos, perr := position(d.text, a, c.utf8)
		if perr != nil {
			return tools.Errorf("%v", perr), nil
		}
		out, err = t.at(ctx, c, d, a.Operation, pos)
	default:
		return tools.Errorf("unknown operation %q", a.Operation), nil
	}
	if err != nil {
		return tools.Errorf("%s: %v", c.srv.Name, err), nil
	}
	return tools.Result{Content: cut(out)}, nil
}

// position is the LSP position of the call's line and symbol (or column).
func position(text string, a navArgs, utf8Units bool) (protocol.Position, error) {
	if a.Line < 1 {
		return protocol.Position{}, errors.New("needs line (1-based) and symbol (its name on that line)")
	}
	n := strings.Count(text, "\n") + 1
	if a.Line > n {
		return protocol.Position{}, fmt.Errorf("line %d is past the end of the file (%d lines)", a.Line, n)
	}
	line := lineOf(text, a.Line-1)
	col := a.Column
	if a.Symbol != "" {
		col = wordColumn(line, a.Symbol)
		if col == 0 {
			return protocol.Position{}, fmt.Errorf("%q is not on line %d: %s", a.Symbol, a.Line, strings.TrimSpace(line))
		}
	}
	if col < 1 {
		return protocol.Position{}, errors.New("needs symbol (the name on that line) or column")
	}
	return protocol.Position{Line: uint32(a.Line - 1), Character: character(line, col, utf8Units)}, nil
}

// wordColumn is the 1-based column (in characters) of the first
// occurrence of word on line as a whole word, else as a substring; 0 when
// absent.
func wordColumn(line, word string) int {
	at := -1
	for i := 0; ; {
		j := strings.Index(line[i:], word)
		if j < 0 {
			break
		}
		j += i
		if at < 0 {
			at = j
		}
		before, after := j == 0 || !isWord(lastRune(line[:j])), j+len(word) == len(line) || !isWord([]rune(line[j+len(word):])[0])
		if before && after {
			at = j
			break
		}
		i = j + 1
	}
	if at < 0 {
		return 0
	}
	return len([]rune(line[:at])) + 1
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r := []rune(s)
	return r[len(r)-1]
}

// at asks a question at a position.
func (t *navTool) at(ctx context.Context, c *conn, d *doc, op string, pos protocol.Position) (string, error) {
	td := protocol.TextDocumentIdentifier{URI: d.uri}
	params := map[string]any{"textDocument": td, "position": pos}
	method := map[string]string{"definition": "textDocument/definition", "references": "textDocument/references",
		"implementation": "textDocument/implementation", "hover": "textDocument/hover"}[op]
	if op == "references" {
		params["context"] = map[string]bool{"includeDeclaration": true}
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw); err != nil {
		return "", err
	}
	if op == "hover" {
		return hoverText(raw), nil
	}
	locs := locations(raw)
	if len(locs) == 0 {
		return "no " + op + " found", nil
	}
	return t.m.listLocations(c, locs), nil
}

// locations decodes Location, []Location or []LocationLink.
func locations(raw json.RawMessage) []protocol.Location {
	var many []struct {
		protocol.Location
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange protocol.Range       `json:"targetSelectionRange"`
	}
	if json.Unmarshal(raw, &many) != nil {
		var one protocol.Location
		if json.Unmarshal(raw, &one) != nil || one.URI == "" {
			return nil
		}
		return []protocol.Location{one}
	}
	out := make([]protocol.Location, 0, len(many))
	for _, l := range many {
		if l.URI == "" && l.TargetURI != "" {
			l.URI, l.Range = l.TargetURI, l.TargetSelectionRange
		}
		if l.URI != "" {
			out = append(out, l.Location)
		}
	}
	return out
}

// listLocations writes locs as "path:line:col: text of the line".
func (m *Manager) listLocations(c *conn, locs []protocol.Location) string {
	var b strings.Builder
	texts := map[string]string{}
	for i, l := range locs {
		if i == maxLocations {
			fmt.Fprintf(&b, "... and %d more\n", len(locs)-i)
			break
		}
		path := uriPath(l.URI)
		if m.deniedAt(path) {
			continue
		}
		text, ok := texts[path]
		if !ok {
			text = m.fileText(path)
			texts[path] = text
		}
		line := lineOf(text, int(l.Range.Start.Line))
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", m.display(path), l.Range.Start.Line+1, column(line, l.Range.Start.Character, c.utf8), strings.TrimSpace(line))
	}
	return b.String()
}

// fileText is the text of the file at path within the session's
// directory; "" outside it or when unreadable (a definition in the
// standard library is listed without its line).
func (m *Manager) fileText(path string) string {
	rel := m.rel(path)
	if rel == "" {
		return ""
	}
	text, _, _, _ := m.read(rel)
	return text
}

// hoverText is a hover's contents as text.
func hoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 || string(h.Contents) == "null" {
		return "no hover information"
	}
	var parts []string
	var one struct {
		Value string `json:"value"`
	}
	var s string
	var many []json.RawMessage
	switch {
	case json.Unmarshal(h.Contents, &s) == nil:
		parts = append(parts, s)
	case json.Unmarshal(h.Contents, &many) == nil:
		for _, p := range many {
			if json.Unmarshal(p, &s) == nil {
				parts = append(parts, s)
			} else if json.Unmarshal(p, &one) == nil {
				parts = append(parts, one.Value)
			}
		}
	case json.Unmarshal(h.Contents, &one) == nil:
		parts = append(parts, one.Value)
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// symbolKinds name the LSP's SymbolKind values.
var symbolKinds = []string{1: "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor",
	"enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null",
	"enum member", "struct", "event", "operator", "type parameter"}

func kindName(k protocol.SymbolKind) string {
	if int(k) < len(symbolKinds) && symbolKinds[k] != "" {
		return symbolKinds[k]
	}
	return "symbol"
}

// symbols lists a document's symbols, nested ones indented.
func (t *navTool) symbols(ctx context.Context, c *conn, d *doc) (string, error) {
	var raw []json.RawMessage
	if err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: d.uri}}, &raw); err != nil {
		return "", err
	}
	type sym struct {
		Name     string              `json:"name"`
		Detail   string              `json:"detail"`
		Kind     protocol.SymbolKind `json:"kind"`
		Range    *protocol.Range     `json:"selectionRange"`
		Location *protocol.Location  `json:"location"`
		Children []json.RawMessage   `json:"children"`
	}
	var b strings.Builder
	var walk func(list []json.RawMessage, depth int)
	walk = func(list []json.RawMessage, depth int) {
		for _, r := range list {
			var s sym
			if json.Unmarshal(r, &s) != nil {
				continue
			}
			line := uint32(0)
			if s.Range != nil {
				line = s.Range.Start.Line
			} else if s.Location != nil {
				line = s.Location.Range.Start.Line
			}
			fmt.Fprintf(&b, "%s%s %s (line %d)\n", strings.Repeat("  ", depth), kindName(s.Kind), s.Name, line+1)
			walk(s.Children, depth+1)
		}
	}
	walk(raw, 0)
	if b.Len() == 0 {
		return "no symbols", nil
	}
	return b.String(), nil
}

// workspaceSymbols lists the workspace's symbols matching query.
func (t *navTool) workspaceSymbols(ctx context.Context, c *conn, query string) (string, error) {
	var raw []struct {
		Name          string              `json:"name"`
		Kind          protocol.SymbolKind `json:"kind"`
		ContainerName string              `json:"containerName"`
		Location      protocol.Location   `json:"location"`
	}
	if err := c.call(ctx, "workspace/symbol", map[string]string{"query": query}, &raw); err != nil {
		return "", err
	}
	var b strings.Builder
	n := 0
	for _, s := range raw {
		path := uriPath(s.Location.URI)
		if rel := t.m.rel(path); rel == "" || t.m.denied(rel) {
			continue // outside the working directory (a dependency's), or kept from the model
		}
		if n == maxLocations {
			fmt.Fprintf(&b, "... and more: narrow the query\n")
			break
		}
		n++
		name := s.Name
		if s.ContainerName != "" {
			name = s.ContainerName + "." + name
		}
		fmt.Fprintf(&b, "%s %s %s:%d\n", kindName(s.Kind), name, t.m.display(path), s.Location.Range.Start.Line+1)
	}
	if n == 0 {
		return "no symbol matches " + query + " in the working directory", nil
	}
	return b.String(), nil
}

// cut bounds the tool's output, at a character's start.
func cut(s string) string {
	if len(s) <= maxToolBytes {
		return s
	}
	n := maxToolBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "\n... (cut)"
}
