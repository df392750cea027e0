package lsp

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Options configure a Manager.
type Options struct {
	// Dir is the session's directory (absolute), the servers' working
	// directory and their workspace root unless a root marker says
	// otherwise.
	Dir string
	// Root reads Dir's files: only files within it are given to servers.
	Root *os.Root
	// Servers are the servers that may start, the first serving a file
	// wins (see Settings.Servers).
	Servers []Server
	// Wait bounds Change's wait for the servers' diagnostics (0: do not
	// wait, report what is known).
	Wait time.Duration
	// Env is the servers' environment (KEY=VALUE), without secrets.
	Env []string
	// Allow, when not nil, is asked once before a server first starts
	// (it may ask the person, and must return when ctx ends); an error
	// says why it may not, and the server is given up for the session.
	Allow func(ctx context.Context, srv Server) error
	// Denied, when not nil, says which files (relative to Dir; one
	// outside it starts with ../) the person's rules keep from the file
	// tools: they are never given to a server, and nothing of theirs is
	// shown.
	Denied func(rel string) bool
	// Backoff is the wait before the first restart of a server that
	// crashed or failed to start, doubled at each next one (0: a second).
	Backoff time.Duration
}

// Timing of the servers' life.
const (
	// startTimeout bounds a server's initialize; a server that does not
	// answer by then counts as failed.
	startTimeout = 30 * time.Second
	// maxRestarts is how many times a server that crashed or failed to
	// start is started again before it is given up for the session.
	maxRestarts = 3
	// settleQuiet is how long diagnostics must stop coming, once the
	// changed file's arrived, for a change to count as checked (a server
	// publishes the files a change broke right after the changed one).
	settleQuiet = 150 * time.Millisecond
	// closeWait bounds a server's shutdown when the session ends.
	closeWait = 2 * time.Second
)

// Manager is the language servers of one session's directory.
type Manager struct {
	opts Options
	mu   sync.Mutex
	// servers are keyed by configuration name and workspace root.
	servers map[string]*server
	closed  bool
	// ctx ends at Close: starts in flight stop.
	ctx    context.Context
	cancel context.CancelFunc
}

// server is one configured server for one workspace root, over its
// successive processes.
type server struct {
	cfg  Server
	root string
	// conn is the running process; nil before the first start, while one
	// starts, after a crash and once given up.
	conn     *conn
	starting chan struct{} // closed when the start in flight ends; nil when none
	lastErr  error
	restarts int
	retryAt  time.Time
	gaveUp   bool
	// allowed is true once Options.Allow allowed the server (or it needs
	// no answer); refused when it did not.
	allowed, refused bool
	docs             map[string]*doc // by absolute path
}

// doc is a file the server was given.
type doc struct {
	uri     protocol.DocumentURI
	lang    string
	version int32
	text    string
	mod     time.Time
	size    int64
	sent    bool // didOpen sent to the current process
	// baseline is true once a change waited for its first diagnostics.
	baseline bool
}

// New returns a Manager; no server starts before a file of its language
// is read or changed.
func New(opts Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, servers: map[string]*server{}, ctx: ctx, cancel: cancel}
}

// rel is path relative to the session's directory, or "" when outside.
func (m *Manager) rel(path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.Dir, path)
	}
	r, err := filepath.Rel(m.opts.Dir, filepath.Clean(path))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return r
}

// display is how a path appears to the model: relative to the session's
// directory when within it.
func (m *Manager) display(abs string) string {
	if r := m.rel(abs); r != "" {
		return r
	}
	return abs
}

// serverFor returns the server of path's language and workspace root,
// creating it (not started); nil when no server serves the file or it
// is outside the directory. m.mu is held.
func (m *Manager) serverFor(rel string) *server {
	if m.closed || rel == "" {
		return nil
	}
	i := slices.IndexFunc(m.opts.Servers, func(s Server) bool { return s.serves(rel) })
	if i < 0 {
		return nil
	}
	cfg := m.opts.Servers[i]
	root := m.rootOf(cfg, rel)
	s := m.servers[cfg.Name+"\x00"+root]
	if s == nil && root != m.opts.Dir && m.roots(cfg.Name) >= maxRoots {
		// A monorepo of many packages: past maxRoots, one process at
		// the session's directory serves the rest.
		root = m.opts.Dir
		s = m.servers[cfg.Name+"\x00"+root]
	}
	if s == nil {
		s = &server{cfg: cfg, root: root, docs: map[string]*doc{}}
		m.servers[cfg.Name+"\x00"+root] = s
	}
	return s
}

// maxRoots bounds the workspace roots (below the session's directory)
// a server is started for, each its own process.
const maxRoots = 4

// roots counts the roots below the session's directory the server named
// name has; m.mu is held.
func (m *Manager) roots(name string) int {
	n := 0
	for _, s := range m.servers {
		if s.cfg.Name == name && s.root != m.opts.Dir {
			n++
		}
	}
	return n
}

// rootOf is the nearest directory above rel, within the session's
// directory, holding one of cfg's root markers; the session's directory
// when none does.
func (m *Manager) rootOf(cfg Server, rel string) string {
	for d := filepath.Dir(rel); ; d = filepath.Dir(d) {
		for _, marker := range cfg.RootMarkers {
			if _, err := m.opts.Root.Stat(filepath.Join(d, marker)); err == nil {
				return filepath.Join(m.opts.Dir, d)
			}
		}
		if d == "." || d == string(filepath.Separator) {
			return m.opts.Dir
		}
	}
}

// ensure starts s when it is not running and may start; m.mu is held.
// It returns the running process, else nil (always nil once closed).
func (m *Manager) ensure(s *server) *conn {
	if m.closed {
		return nil // the session ended: no server starts again
	}
	if s.conn != nil && s.conn.exited() {
		s.lastErr, s.conn = s.conn.exitErr, nil
		m.failed(s)
	}
	if s.conn != nil || s.starting != nil || s.gaveUp || time.Now().Before(s.retryAt) {
		return s.conn
	}
	done := make(chan struct{})
	s.starting = done
	allow := m.opts.Allow
	if s.allowed {
		allow = nil
	}
	go func() {
		var c *conn
		var err error
		if allow != nil {
			if aerr := allow(m.ctx, s.cfg); aerr != nil {
				m.mu.Lock()
				s.starting, s.lastErr, s.gaveUp, s.refused = nil, aerr, true, true
				m.mu.Unlock()
				close(done)
				return
			}
		}
		ctx, cancel := context.WithTimeout(m.ctx, startTimeout)
		c, err = start(ctx, s.cfg, m.opts.Dir, s.root, m.opts.Env)
		cancel()
		m.mu.Lock()
		if m.closed && err == nil {
			// The session closed meanwhile: Close waits for done, so
			// the server is shut down before it ends.
			s.starting = nil
			m.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			c.close(ctx)
			cancel()
			close(done)
			return
		}
		defer m.mu.Unlock()
		s.starting = nil
		defer close(done)
		s.allowed = true
		if err != nil {
			s.lastErr = err
			m.failed(s)
			return
		}
		s.conn = c
		for _, d := range s.docs {
			d.sent = false
			m.sendOpen(s, d)
		}
	}()
	return nil
}

// failed counts a crash or a failed start of s; m.mu is held.
func (m *Manager) failed(s *server) {
	s.restarts++
	if s.restarts > maxRestarts {
		s.gaveUp = true
		return
	}
	s.retryAt = time.Now().Add(cmp.Or(m.opts.Backoff, time.Second) << (s.restarts - 1))
	for _, d := range s.docs {
		d.sent = false
	}
}

// sendOpen sends d's didOpen to s's process; m.mu is held.
func (m *Manager) sendOpen(s *server, d *doc) {
	if s.conn == nil || d.sent {
		return
	}
	d.sent = s.conn.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: d.uri, LanguageID: protocol.LanguageKind(d.lang), Version: d.version, Text: d.text}}) == nil
}

// read reads rel and its time and size; ok is false when it cannot.
func (m *Manager) read(rel string) (text string, mod time.Time, size int64, ok bool) {
	if m.denied(rel) {
		return "", time.Time{}, 0, false
	}
	info, err := m.opts.Root.Stat(rel)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxDocBytes {
		return "", time.Time{}, 0, false
	}
	data, err := m.opts.Root.ReadFile(rel)
	if err != nil {
		return "", time.Time{}, 0, false
	}
	return string(data), info.ModTime(), info.Size(), true
}

// denied reports whether the file at rel (relative to the session's
// directory; "" outside it) is kept from the file tools, as named or
// with its symlinks resolved (a link to a denied file is denied, as the
// file tools have it).
func (m *Manager) denied(rel string) bool {
	if rel == "" || m.opts.Denied == nil {
		return false
	}
	if m.opts.Denied(rel) {
		return true
	}
	real, err := filepath.EvalSymlinks(filepath.Join(m.opts.Dir, rel))
	if err != nil {
		return false // missing: nothing of it to give or show
	}
	dir, err := filepath.EvalSymlinks(m.opts.Dir)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(dir, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return false // outside: os.Root does not read it
	}
	return r != rel && m.opts.Denied(r)
}

// deniedAt reports whether the file at the absolute path is kept from
// the file tools: within the session's directory as denied says, and
// outside it (a server may publish of any file: tsconfig.json's include,
// go.work's use) by its path relative to the directory, as named or with
// its symlinks resolved.
func (m *Manager) deniedAt(path string) bool {
	if m.opts.Denied == nil || path == "" {
		return false
	}
	if rel := m.rel(path); rel != "" {
		return m.denied(rel)
	}
	for _, p := range []string{path, evalSymlinks(path)} {
		if r, err := filepath.Rel(m.opts.Dir, p); p != "" && (err != nil || m.opts.Denied(r)) {
			return true
		}
	}
	return false
}

// evalSymlinks is path with its symlinks resolved, "" when it cannot be.
func evalSymlinks(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	return real
}

// maxDocBytes is the largest file given to a server (a generated file
// past it is left alone).
const maxDocBytes = 4 << 20

// Open gives the file at path (relative to the session's directory or
// absolute within it) to its server, starting the server when needed: a
// read, so that the file's diagnostics are known before it changes. It
// never waits for the server.
func (m *Manager) Open(path string) {
	rel := m.rel(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.serverFor(rel)
	if s == nil {
		return
	}
	abs := filepath.Join(m.opts.Dir, rel)
	if _, ok := s.docs[abs]; !ok {
		text, mod, size, ok := m.read(rel)
		if !ok {
			return
		}
		s.docs[abs] = &doc{uri: protocol.URIFromPath(abs), lang: s.cfg.LanguageID(filepath.Ext(rel)), version: 1, text: text, mod: mod, size: size}
	}
	m.ensure(s)
	m.sendOpen(s, s.docs[abs])
}

// Close shuts every server down, waiting at most a couple of seconds for
// each before killing it. The Manager starts no server after.
func (m *Manager) Close() {
	m.mu.Lock()
	conns, starting := m.closing()
	m.mu.Unlock()
	m.finishClose(conns, starting)
}

// closing marks m closed and returns the running servers and the starts
// in flight; m.mu is held.
func (m *Manager) closing() (conns []*conn, starting []chan struct{}) {
	m.closed = true
	m.cancel()
	for _, s := range m.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
		}
		if s.starting != nil {
			starting = append(starting, s.starting)
		}
	}
	return conns, starting
}

// finishClose shuts conns down and waits for the starts in flight, which
// close what they started.
func (m *Manager) finishClose(conns []*conn, starting []chan struct{}) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			defer cancel()
			c.close(ctx)
		}()
	}
	wg.Wait()
	for _, ch := range starting { // a start in flight closes what it started
		<-ch
	}
}

// State is a server's state for /lsp and agent doctor.
type State struct {
	Name, Command string
	// Root is the workspace root, relative to the session's directory
	// ("." for itself).
	Root string
	// State is "not started", "starting", "running", "restarting" (a
	// crash or failed start, to be retried), "gave up" or "not trusted".
	State string
	// Detail says why it is not running ("" when running).
	Detail string
	// Restarts counts crashes and failed starts; Files the files it was
	// given; Errors and Warnings its current diagnostics.
	Restarts, Files, Errors, Warnings int
	Source                            string
}

// States are the servers configured or found, each with its state; one
// per workspace root once started, ordered by name.
func (m *Manager) States() []State {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []State
	seen := map[string]bool{}
	for _, s := range m.servers {
		seen[s.cfg.Name] = true
		st := State{Name: s.cfg.Name, Command: s.cfg.Command, Root: m.display(s.root), Restarts: s.restarts, Files: len(s.docs), Source: s.cfg.Source}
		if st.Root == "" {
			st.Root = "."
		}
		if s.conn != nil && s.conn.exited() {
			s.lastErr, s.conn = s.conn.exitErr, nil
			m.failed(s)
		}
		switch {
		case s.refused:
			st.State = "not trusted"
		case s.gaveUp:
			st.State = "gave up"
		case s.conn != nil:
			st.State = "running"
			st.Errors, st.Warnings = s.conn.counts()
		case s.starting != nil:
			st.State = "starting"
		case s.lastErr != nil:
			st.State = "restarting"
		default:
			st.State = "not started"
		}
		if s.lastErr != nil && st.State != "running" {
			st.Detail = s.lastErr.Error()
		}
		out = append(out, st)
	}
	for _, cfg := range m.opts.Servers {
		if !seen[cfg.Name] {
			out = append(out, State{Name: cfg.Name, Command: cfg.Command, Root: ".", State: "not started", Source: cfg.Source})
		}
	}
	slices.SortFunc(out, func(a, b State) int { return strings.Compare(a.Name+a.Root, b.Name+b.Root) })
	return out
}

// Counts are the errors and warnings the running servers report now,
// across every file they published.
func (m *Manager) Counts() (errors, warnings int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.conn != nil {
			e, w := s.conn.counts()
			errors, warnings = errors+e, warnings+w
		}
	}
	return errors, warnings
}

// Servers are the configured or found servers (for the system prompt's
// and doctor's listing).
func (m *Manager) Servers() []Server { return m.opts.Servers }

// counts are the errors and warnings of c's last publishes.
func (c *conn) counts() (errors, warnings int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.diags {
		for _, d := range p.list {
			switch severity(d.Severity) {
			case "error":
				errors++
			case "warning":
				warnings++
			}
		}
	}
	return errors, warnings
}

// noteOf says why s gave no diagnostics in time; m.mu is held.
func (m *Manager) noteOf(s *server, waited time.Duration) string {
	name := s.cfg.Name
	switch {
	case s.refused:
		return fmt.Sprintf("%s does not start: %v", name, s.lastErr)
	case s.gaveUp:
		return fmt.Sprintf("%s gave up after %d failed starts or crashes (%v); no diagnostics this session (/lsp shows it)", name, s.restarts, s.lastErr)
	case s.conn == nil && s.starting != nil:
		return fmt.Sprintf("%s is still starting (waited %s); diagnostics not checked", name, waited.Round(time.Millisecond))
	case s.conn == nil && s.lastErr != nil:
		return fmt.Sprintf("%s is not running (%v); it restarts at the next file of its language", name, s.lastErr)
	}
	return fmt.Sprintf("%s had not finished checking after %s; diagnostics may be incomplete", name, waited.Round(time.Millisecond))
}
