package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// Options are a Manager's hooks; both may be nil and are called from the
// manager's goroutines.
type Options struct {
	// OnChange is called after the tools of a server changed (it started,
	// its list changed, it died).
	OnChange func()
	// Warn is given each problem once, in one line: a server that failed
	// or died, a tool skipped for its schema.
	Warn func(msg string)
	// Version is the client version told to servers.
	Version string
}

// Manager runs MCP servers. Its methods are safe for concurrent use.
type Manager struct {
	opts    Options
	servers []*server
	wg      sync.WaitGroup
	mu      sync.Mutex // guards the fields below and the servers' mutable fields
	closed  bool
	// refreshing counts the tool lists being fetched again after
	// notifications/tools/list_changed; settled is closed when it drops
	// to 0.
	refreshing int
	settled    chan struct{}
	// quit ends when Close starts: it cuts the refreshes short, so that
	// Close never waits for a server slow to list its tools.
	quit    context.Context
	endQuit context.CancelFunc
}

// NewManager returns a manager of the servers cfgs; nothing starts before
// Start.
func NewManager(cfgs []Config, opts Options) *Manager {
	m := &Manager{opts: opts}
	m.quit, m.endQuit = context.WithCancel(context.Background())
	for _, c := range cfgs {
		s := &server{cfg: c, m: m, state: StateStarting, ready: make(chan struct{})}
		switch {
		case c.Disabled:
			s.state = StateDisabled
			close(s.ready)
		case c.Skipped != "":
			s.state, s.err = StateSkipped, c.Skipped
			close(s.ready)
		}
		if s.cfg.Timeout <= 0 {
			s.cfg.Timeout = DefaultTimeout
		}
		if s.cfg.StartupTimeout <= 0 {
			s.cfg.StartupTimeout = DefaultStartupTimeout
		}
		m.servers = append(m.servers, s)
	}
	return m
}

// Start starts every server that is neither disabled nor skipped, each in
// its own goroutine, and returns at once. Cancelling ctx stops them. Start
// after Close (the interface quit before its first frame) starts nothing.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	for _, s := range m.servers {
		if s.state != StateStarting {
			continue
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.start(ctx)
		}()
	}
}

// Wait returns when every server is running or failed, or when ctx is
// done. Each server's start is bounded by its StartupTimeout.
func (m *Manager) Wait(ctx context.Context) {
	for _, s := range m.servers {
		select {
		case <-s.ready:
		case <-ctx.Done():
			return
		}
	}
}

// Settle returns once no tool list announced as changed
// (notifications/tools/list_changed) is still being fetched, or when ctx
// is done; each fetch is bounded by its server's StartupTimeout. Called
// before a request, it makes the request carry every change announced
// before it.
func (m *Manager) Settle(ctx context.Context) {
	m.mu.Lock()
	n, settled := m.refreshing, m.settled
	m.mu.Unlock()
	if n == 0 {
		return
	}
	select {
	case <-settled:
	case <-ctx.Done():
	}
}

// beginRefresh and endRefresh bracket a fetch of a changed tool list;
// beginRefresh reports false, and no fetch may start, once Close started.
func (m *Manager) beginRefresh() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	if m.refreshing == 0 {
		m.settled = make(chan struct{})
	}
	m.refreshing++
	return true
}

func (m *Manager) endRefresh() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refreshing--; m.refreshing == 0 {
		close(m.settled)
	}
}

// Tools returns the tools of the running servers, sorted by name; a
// snapshot.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ts []tools.Tool
	for _, s := range m.servers {
		for _, t := range s.tools {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(a, b tools.Tool) int { return strings.Compare(a.Definition().Name, b.Definition().Name) })
	return ts
}

// Status returns every server's state in configuration order.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, len(m.servers))
	for i, s := range m.servers {
		names := []string{}
		for _, t := range s.tools {
			names = append(names, t.name)
		}
		out[i] = Status{Name: s.cfg.Name, State: s.state, Error: s.err, Tools: names}
	}
	return out
}

// Close stops every server (a stdio server's whole process group) and
// waits for their goroutines, the fetches of changed tool lists included
// (cut short: they warn of nothing and change nothing after Close).
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	n, settled := m.refreshing, m.settled
	var sessions []*server
	for _, s := range m.servers {
		s.closing = true
		if s.session != nil {
			sessions = append(sessions, s)
		}
	}
	m.mu.Unlock()
	m.endQuit()
	if n > 0 {
		<-settled // no fetch starts once closed
	}
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

func (m *Manager) warn(format string, args ...any) {
	if m.opts.Warn != nil {
		m.opts.Warn(fmt.Sprintf(format, args...))
	}
}

func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

// server is one configured server. Fields below ready are guarded by m.mu.
type server struct {
	cfg   Config
	m     *Manager
	ready chan struct{} // closed once the server runs or failed
	cmd   *exec.Cmd     // a stdio server's process
	tail  *tailBuffer   // a stdio server's last stderr

	state   State
	err     string
	session *sdk.ClientSession
	tools   []*tool
	skipped map[string]bool // tools skipped for their schema, warned about
	closing bool
	listing sync.Mutex // one tool listing at a time
}

// start connects, lists the tools and watches the session until it ends.
func (s *server) start(ctx context.Context) {
	if s.cfg.Gate != nil {
		if ok, why := s.cfg.Gate(ctx); !ok {
			s.m.mu.Lock()
			s.state, s.err = StateSkipped, why
			s.m.mu.Unlock()
			close(s.ready)
			return
		}
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: s.m.opts.Version}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			if !s.m.beginRefresh() {
				return
			}
			go func() {
				defer s.m.endRefresh()
				s.refresh(ctx)
			}()
		},
	})
	transport, err := s.transport()
	if err != nil {
		s.fail(err.Error())
		return
	}
	cs, err := client.Connect(sctx, transport, nil)
	if err == nil {
		s.m.mu.Lock()
		s.session = cs
		closing := s.closing
		s.m.mu.Unlock()
		if closing {
			s.stop()
			s.fail("stopped before it started")
			return
		}
		err = s.list(sctx)
	}
	if err != nil {
		if sctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("did not start within %s", s.cfg.StartupTimeout)
		}
		s.fail(s.reason(err))
		if cs != nil {
			s.stop()
		} else if s.cmd != nil {
			killGroup(s.cmd) // started, but the handshake failed
		}
		return
	}
	s.m.mu.Lock()
	s.state = StateRunning
	s.m.mu.Unlock()
	close(s.ready)
	s.m.changed()
	go func() {
		<-ctx.Done()
		s.stop()
	}()
	_ = cs.Wait()
	s.died()
}

// died records that a running server's session ended without Close: its
// tools go, it is reported once, what is left of it is stopped. A call
// that finds the connection closed calls it too, so the next request no
// longer offers the tools.
func (s *server) died() {
	s.m.mu.Lock()
	report := !s.closing && s.state == StateRunning
	if report {
		s.state, s.err, s.tools = StateFailed, s.reason(fmt.Errorf("stopped")), nil
	}
	s.m.mu.Unlock()
	if report {
		s.m.warn("MCP server %s stopped: %s; its tools are gone", s.cfg.Name, s.errText())
		s.m.changed()
		s.stop()
	}
}

// transport returns the server's transport: a child process or HTTP.
func (s *server) transport() (sdk.Transport, error) {
	if s.cfg.URL != "" {
		client := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, base: http.DefaultTransport}}
		if s.cfg.SSE {
			return &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxRetries: -1}, nil
	}
	if s.cfg.Command == "" {
		return nil, fmt.Errorf("neither command nor url is set")
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir, cmd.Env = s.cfg.Dir, s.cfg.Env
	s.tail = &tailBuffer{max: 2048}
	cmd.Stderr = s.tail
	setProcessGroup(cmd)
	s.cmd = cmd
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// reason is err with the end of the server's stderr, which usually says
// why a server failed.
func (s *server) reason(err error) string {
	msg := err.Error()
	if s.tail != nil {
		if t := s.tail.lastLine(); t != "" {
			msg += " (stderr: " + t + ")"
		}
	}
	return msg
}

// fail records a failed start and reports it.
func (s *server) fail(reason string) {
	s.m.mu.Lock()
	s.state, s.err, s.tools = StateFailed, reason, nil
	s.m.mu.Unlock()
	close(s.ready)
	s.m.warn("MCP server %s failed: %s", s.cfg.Name, reason)
}

func (s *server) errText() string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.err
}

// stop closes the session and kills what is left of the process group.
func (s *server) stop() {
	s.m.mu.Lock()
	s.closing = true
	cs := s.session
	s.m.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if s.cmd != nil {
		killGroup(s.cmd)
	}
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	defer context.AfterFunc(s.m.quit, cancel)()
	if err := s.list(ctx); err != nil {
		if s.m.quit.Err() == nil {
			s.m.warn("MCP server %s: listing its tools again: %v", s.cfg.Name, err)
		}
		return
	}
	if s.m.quit.Err() == nil {
		s.m.changed()
	}
}

// list fetches the tool list (every page) and replaces the server's tools.
// A tool whose schema does not compile is skipped with a warning.
func (s *server) list(ctx context.Context) error {
	s.listing.Lock()
	defer s.listing.Unlock()
	s.m.mu.Lock()
	cs := s.session
	s.m.mu.Unlock()
	if cs == nil {
		// A list_changed during the handshake (server-everything registers
		// tools once initialised): the first listing, after it, sees them.
		return nil
	}
	var all []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	taken := map[string]bool{}
	for _, o := range s.m.servers {
		if o != s {
			for _, t := range o.tools {
				taken[t.name] = true
			}
		}
	}
	var ts []*tool
	for _, st := range all {
		schema, err := json.Marshal(st.InputSchema)
		if err == nil {
			_, err = tools.CompileSchema(schema)
		}
		if err != nil || st.InputSchema == nil {
			if err == nil {
				err = fmt.Errorf("no input schema")
			}
			if !s.skipped[st.Name] { // once, not again at each list_changed
				if s.skipped == nil {
					s.skipped = map[string]bool{}
				}
				s.skipped[st.Name] = true
				s.m.warnLocked("MCP server %s: tool %s skipped: %v", s.cfg.Name, st.Name, err)
			}
			continue
		}
		name := uniqueName(s.cfg.Name, st.Name, func(n string) bool { return taken[n] })
		taken[name] = true
		ts = append(ts, newTool(s, name, st, schema))
	}
	slices.SortFunc(ts, func(a, b *tool) int { return strings.Compare(a.name, b.name) })
	s.tools = ts
	return nil
}

// warnLocked warns without m.mu held by the caller's hook: the hook runs
// in its own goroutine.
func (m *Manager) warnLocked(format string, args ...any) {
	if m.opts.Warn != nil {
		msg := fmt.Sprintf(format, args...)
		go m.opts.Warn(msg)
	}
}

// headerTransport adds headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// lastLine is the last non-empty line written.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
