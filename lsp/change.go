package lsp

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Report is what a change did to the servers' diagnostics.
type Report struct {
	// New are the errors and warnings the change introduced, errors
	// first, in the changed files and the files it broke; at most
	// maxReported.
	New []Diagnostic `json:"new,omitempty"`
	// More counts those left out past the bounds, MoreErrors the errors
	// among them.
	More       int `json:"more,omitempty"`
	MoreErrors int `json:"more_errors,omitempty"`
	// Notes say which server could not answer in time, and why.
	Notes []string `json:"notes,omitempty"`
	// Checked names the servers that checked the change.
	Checked []string `json:"checked,omitempty"`
}

// Bounds of a Report.
const (
	maxReported      = 20
	maxReportedBytes = 4000
)

// Empty reports whether r has nothing to say.
func (r Report) Empty() bool { return len(r.New) == 0 && len(r.Notes) == 0 }

// Text is r for the model: nothing when the change introduced nothing,
// else a <diagnostics> block with one diagnostic per line (errors first)
// and the servers' notes.
func (r Report) Text() string {
	if r.Empty() {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n<diagnostics>\n")
	if len(r.New) > 0 {
		errs := r.MoreErrors
		for _, d := range r.New {
			if d.Severity == "error" {
				errs++
			}
		}
		fmt.Fprintf(&b, "This change introduced %s (%s):\n", counted(errs, len(r.New)-errs+r.More), strings.Join(r.Checked, ", "))
		for _, d := range r.New {
			b.WriteString(d.String() + "\n")
		}
		if r.More > 0 {
			fmt.Fprintf(&b, "... and %d more (the lsp tool's diagnostics operation lists a file's)\n", r.More)
		}
	}
	for _, n := range r.Notes {
		b.WriteString(n + "\n")
	}
	b.WriteString("</diagnostics>")
	return b.String()
}

// counted is "2 errors and 1 warning" (warnings here counts the rest).
func counted(errs, rest int) string {
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	switch {
	case errs > 0 && rest > 0:
		return plural(errs, "error") + " and " + plural(rest, "warning")
	case errs > 0:
		return plural(errs, "error")
	}
	return plural(rest, "warning")
}

// pending is one server's part of a change.
type pending struct {
	s *server
	c *conn
	// before are the server's diagnostics before the change, seq its
	// publish count then; changed the documents changed, with their text
	// before when it was known.
	before  map[protocol.DocumentURI]published
	seq     uint64
	changed map[protocol.DocumentURI]*string
	// now are the changed documents' texts as sent, wait their versions
	// (copies: another change may move the documents on meanwhile).
	now  map[protocol.DocumentURI]string
	wait []sentVersion
	// removed counts the documents closed because their file is gone
	// (what needed them breaks: the server republishes, and settle waits
	// for it to go quiet).
	removed int
	// unchecked names a file whose diagnostics before the change had not
	// come ("": all had).
	unchecked string
}

// sentVersion is a document's version as sent to a server.
type sentVersion struct {
	uri     protocol.DocumentURI
	version int32
}

// Change tells the servers that the files at paths (relative to the
// session's directory or absolute within it) changed on disk, waits for
// their diagnostics for at most the configured wait (or until ctx ends),
// and reports what the change introduced: compared with each file's
// diagnostics before the change, by severity, message and position
// (positions of the changed file mapped across the change). A file no
// server serves costs nothing.
func (m *Manager) Change(ctx context.Context, paths []string) Report {
	start := time.Now()
	deadline := start.Add(m.opts.Wait)
	var rep Report
	byServer := map[*server][]string{}
	m.mu.Lock()
	var order []*server
	for _, p := range paths {
		rel := m.rel(p)
		if s := m.serverFor(rel); s != nil {
			if _, ok := byServer[s]; !ok {
				order = append(order, s)
			}
			byServer[s] = append(byServer[s], rel)
			m.ensure(s)
		}
	}
	m.mu.Unlock()
	if len(order) == 0 {
		return rep
	}
	var parts []*pending
	for _, s := range order {
		c := m.ready(ctx, s, deadline)
		if c == nil {
			m.mu.Lock()
			rep.Notes = append(rep.Notes, m.noteOf(s, time.Since(start)))
			m.keep(s, byServer[s])
			m.mu.Unlock()
			continue
		}
		if p := m.send(ctx, s, c, byServer[s], deadline); p != nil {
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		switch settled := p.settle(ctx, deadline); {
		case !settled && p.c.exited():
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s %v while checking this change; it restarts at the next file of its language", p.s.cfg.Name, p.c.exitErr))
			continue
		case !settled:
			m.mu.Lock()
			rep.Notes = append(rep.Notes, m.noteOf(p.s, time.Since(start)))
			m.mu.Unlock()
		case p.unchecked != "":
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s had not checked %s before this change (it was still starting or busy): what is listed may include older diagnostics", p.s.cfg.Name, p.unchecked))
		}
		rep.Checked = append(rep.Checked, p.s.cfg.Name)
		rep.New = append(rep.New, m.introducedBy(p)...)
	}
	sortDiagnostics(rep.New)
	all := rep.New
	rep.New, rep.More = bound(all)
	for _, d := range all[len(rep.New):] {
		if d.Severity == "error" {
			rep.MoreErrors++
		}
	}
	return rep
}

// keep records the files at rels as they are now in the documents of s,
// a server not running (their next didOpen gives this text), so that the
// next Sync does not count the same change again; m.mu is held.
func (m *Manager) keep(s *server, rels []string) {
	if s.conn != nil {
		return // it started meanwhile: the next Sync sends the change
	}
	for _, rel := range rels {
		d := s.docs[filepath.Join(m.opts.Dir, rel)]
		if d == nil {
			continue
		}
		if text, mod, size, ok := m.read(rel); ok {
			d.version++
			d.text, d.mod, d.size = text, mod, size
		} else {
			delete(s.docs, filepath.Join(m.opts.Dir, rel))
		}
	}
}

// send waits for the baseline of s's open documents among rels (their
// diagnostics before the change), then sends the new texts.
func (m *Manager) send(ctx context.Context, s *server, c *conn, rels []string, deadline time.Time) *pending {
	// The diagnostics of what the server was given before: a document
	// opened but not yet checked is waited for.
	m.mu.Lock()
	var opened []sentVersion
	for _, rel := range rels {
		if d := s.docs[filepath.Join(m.opts.Dir, rel)]; d != nil && d.sent {
			opened = append(opened, sentVersion{d.uri, d.version})
		}
	}
	// And the first diagnostics of the other files it was given (a file
	// read just before): else its old ones would count as introduced.
	// Each is waited for once: a server may publish nothing of a clean
	// file.
	for _, d := range s.docs {
		if d.sent && !d.baseline && !slices.ContainsFunc(opened, func(o sentVersion) bool { return o.uri == d.uri }) {
			if _, ok, _, _ := c.published(d.uri); !ok {
				d.baseline = true
				opened = append(opened, sentVersion{d.uri, d.version})
			}
		}
	}
	m.mu.Unlock()
	unchecked := ""
	for _, d := range opened {
		if !c.waitPublish(ctx, d.uri, d.version, 0, deadline) {
			unchecked = m.display(uriPath(d.uri))
			break
		}
	}
	// A server still publishing (gopls's analyses after its type check):
	// what it has not said yet would read as new. Half of what is left of
	// the wait at most, so that one that never goes quiet still gets the
	// change checked.
	if half := time.Now().Add(time.Until(deadline) / 2); unchecked == "" && len(opened) > 0 && !c.quiet(ctx, half) {
		unchecked = m.display(uriPath(opened[0].uri))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.conn != c {
		return nil // it stopped: the next change restarts it
	}
	p := &pending{s: s, c: c, changed: map[protocol.DocumentURI]*string{}, now: map[protocol.DocumentURI]string{}, unchecked: unchecked}
	p.before, p.seq = c.snapshot()
	for _, rel := range rels {
		abs := filepath.Join(m.opts.Dir, rel)
		text, mod, size, ok := m.read(rel)
		d := s.docs[abs]
		switch {
		case !ok && d != nil: // removed
			if d.sent {
				_ = c.notify("textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
			}
			delete(s.docs, abs)
			c.forget(d.uri) // its diagnostics went with it
			p.removed++
		case !ok:
		case d == nil || !d.sent:
			if d == nil {
				d = &doc{uri: protocol.URIFromPath(abs), lang: s.cfg.LanguageID(filepath.Ext(rel))}
				s.docs[abs] = d
			}
			d.version++
			d.text, d.mod, d.size = text, mod, size
			m.sendOpen(s, d)
			p.changed[d.uri], p.now[d.uri] = nil, text
			p.wait = append(p.wait, sentVersion{d.uri, d.version})
		case text != d.text:
			old := d.text
			d.version++
			d.text, d.mod, d.size = text, mod, size
			_ = c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{Version: d.version, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}},
				ContentChanges: []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}},
			})
			if c.wantsSave() {
				_ = c.notify("textDocument/didSave", protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: d.uri}})
			}
			p.changed[d.uri], p.now[d.uri] = &old, text
			p.wait = append(p.wait, sentVersion{d.uri, d.version})
		default:
			d.mod, d.size = mod, size
		}
	}
	if len(p.wait) == 0 && p.removed == 0 {
		return nil
	}
	return p
}

// wantsSave reports whether the server asked for didSave.
func (c *conn) wantsSave() bool {
	m, ok := c.caps.TextDocumentSync.(map[string]any)
	if !ok {
		return false
	}
	switch v := m["save"].(type) {
	case bool:
		return v
	case map[string]any:
		return true
	}
	return false
}

// introducedBy compares p's server's diagnostics after the change with
// those before.
func (m *Manager) introducedBy(p *pending) []Diagnostic {
	after, _ := p.c.snapshot()
	var out []Diagnostic
	for _, uri := range slices.Sorted(maps.Keys(after)) {
		a := after[uri]
		if a.seq <= p.seq || m.deniedAt(uriPath(uri)) {
			continue // not published since the change, or kept from the model
		}
		var lines *lineMap
		if old, ok := p.changed[uri]; ok && old != nil {
			lm := newLineMap(*old, p.now[uri])
			lines = &lm
		}
		fresh := introduced(p.before[uri].list, a.list, lines)
		if len(fresh) == 0 {
			continue
		}
		path := uriPath(uri)
		text, ok := p.now[uri]
		if !ok {
			text = m.textOf(p.s, path)
		}
		for _, d := range fresh {
			out = append(out, m.diagnostic(path, text, d, p.c.utf8))
		}
	}
	return out
}

// textOf is the text of the file at path as the server has it, else as
// it is on disk ("" when unreadable).
func (m *Manager) textOf(s *server, path string) string {
	m.mu.Lock()
	d := s.docs[path]
	m.mu.Unlock()
	if d != nil {
		return d.text
	}
	if rel := m.rel(path); rel != "" {
		if text, _, _, ok := m.read(rel); ok {
			return text
		}
	}
	return ""
}

// diagnostic is d of the file at path (text its content) for people.
func (m *Manager) diagnostic(path, text string, d protocol.Diagnostic, utf8Units bool) Diagnostic {
	line := int(d.Range.Start.Line)
	out := Diagnostic{Path: m.display(path), Line: line + 1, Column: column(lineOf(text, line), d.Range.Start.Character, utf8Units),
		Severity: severity(d.Severity), Message: strings.TrimSpace(d.Message), Source: d.Source}
	if d.Code != nil {
		out.Code = strings.Trim(fmt.Sprint(d.Code), `"`)
		if f, ok := d.Code.(float64); ok {
			out.Code = fmt.Sprint(int64(f))
		}
	}
	out.Message = oneLine(out.Message)
	out.Source, out.Code = short(oneLine(out.Source)), short(oneLine(out.Code))
	return out
}

// maxTag bounds a diagnostic's source and code, in bytes.
const maxTag = 64

// short cuts s to maxTag bytes, on a whole character.
func short(s string) string {
	if len(s) <= maxTag {
		return s
	}
	cut := maxTag
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// bound keeps the first diagnostics within the count and byte bounds and
// counts the rest.
func bound(ds []Diagnostic) ([]Diagnostic, int) {
	size := 0
	for i, d := range ds {
		size += len(d.String()) + 1
		if i == maxReported || size > maxReportedBytes {
			return ds[:i], len(ds) - i
		}
	}
	return ds, 0
}

// uriPath is the file path of a file URI ("" for another scheme).
func uriPath(uri protocol.DocumentURI) string {
	p, err := uri.Path()
	if err != nil {
		return ""
	}
	return p
}

// Sync checks the files the servers were given against the disk (after a
// command, which may have changed any) and reports as Change does for
// those that changed; it costs a stat per file when none did.
func (m *Manager) Sync(ctx context.Context) Report {
	var changed []string
	m.mu.Lock()
	for _, s := range m.servers {
		for abs, d := range s.docs {
			rel := m.rel(abs)
			info, err := m.opts.Root.Stat(rel)
			if err != nil || !info.ModTime().Equal(d.mod) || info.Size() != d.size {
				changed = append(changed, abs)
			}
		}
	}
	m.mu.Unlock()
	if len(changed) == 0 {
		return Report{}
	}
	slices.Sort(changed)
	return m.Change(ctx, changed)
}

// maxMessage bounds a diagnostic's message, in bytes.
const maxMessage = 300

// oneLine joins a message's lines with "; " (gopls's "have (...)" and
// "want (...)" lines say what a call lacks), bounded to maxMessage bytes.
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
