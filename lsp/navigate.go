package lsp

// What the lsp tool asks of the Manager: a file given to its server and
// the server running (prepare), the file as it is on disk (refresh), and
// the diagnostics of now (current).

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// prepare starts the server of path, gives it the file as it is on disk,
// and waits until it runs (bounded by ctx); the document it returns is a
// copy, as sent.
func (m *Manager) prepare(ctx context.Context, path string) (*conn, *doc, error) {
	rel := m.rel(path)
	if rel == "" {
		return nil, nil, fmt.Errorf("%s is outside the working directory", path)
	}
	m.mu.Lock()
	s := m.serverFor(rel)
	m.mu.Unlock()
	if s == nil {
		var names []string
		for _, srv := range m.opts.Servers {
			names = append(names, srv.Name+" ("+strings.Join(srv.Extensions, " ")+")")
		}
		if len(names) == 0 {
			return nil, nil, errors.New("no language server is configured or found on PATH (see [lsp] in the README)")
		}
		return nil, nil, fmt.Errorf("no language server serves %s; running: %s", filepath.Ext(rel), strings.Join(names, ", "))
	}
	if _, _, _, ok := m.read(rel); !ok {
		return nil, nil, fmt.Errorf("%s: cannot read it", path)
	}
	m.Open(rel)
	deadline, _ := ctx.Deadline()
	c := m.ready(ctx, s, deadline)
	if c == nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		return nil, nil, errors.New(m.noteOf(s, navWait))
	}
	m.mu.Lock()
	d := s.docs[filepath.Join(m.opts.Dir, rel)]
	m.mu.Unlock()
	if d == nil {
		return nil, nil, fmt.Errorf("%s: cannot read it", path)
	}
	m.refresh(s, c, d, rel)
	m.mu.Lock()
	cp := *d // a change by another agent may move d on meanwhile
	m.mu.Unlock()
	return c, &cp, nil
}

// refresh sends d's text as it is on disk when it changed since it was
// sent (the navigation sees what the model sees).
func (m *Manager) refresh(s *server, c *conn, d *doc, rel string) {
	text, mod, size, ok := m.read(rel)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok || text == d.text || s.conn != c {
		return
	}
	d.version++
	d.text, d.mod, d.size = text, mod, size
	_ = c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{Version: d.version, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}},
	})
}

// current lists the diagnostics the servers report now for path (every
// file when ""), errors first.
func (m *Manager) current(path string) string {
	want := ""
	if path != "" {
		rel := m.rel(path)
		if rel == "" {
			return path + " is outside the working directory"
		}
		want = filepath.Join(m.opts.Dir, rel)
		m.Open(rel)
	}
	type src struct {
		c     *conn
		diags map[protocol.DocumentURI]published
	}
	var srcs []src
	m.mu.Lock()
	running := 0
	for _, s := range m.servers {
		if s.conn != nil && !s.conn.exited() {
			running++
			d, _ := s.conn.snapshot()
			srcs = append(srcs, src{s.conn, d})
		}
	}
	m.mu.Unlock()
	var all []Diagnostic
	for _, s := range srcs {
		for uri, p := range s.diags {
			file := uriPath(uri)
			if want != "" && file != want || m.deniedAt(file) {
				continue
			}
			text := m.fileText(file)
			for _, d := range p.list {
				if severity(d.Severity) != "" {
					all = append(all, m.diagnostic(file, text, d, s.c.utf8))
				}
			}
		}
	}
	if running == 0 {
		return "no language server is running yet (one starts at the first read of a file of its language)"
	}
	if len(all) == 0 {
		return "no errors or warnings"
	}
	sortDiagnostics(all)
	var b strings.Builder
	for i, d := range all {
		if i == 200 {
			fmt.Fprintf(&b, "... and %d more\n", len(all)-i)
			break
		}
		b.WriteString(d.String() + "\n")
	}
	return cut(b.String())
}
