package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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
	// Roots are the absolute directories offered to servers as roots
	// (the working directory); none declares no roots capability.
	Roots []string
	// Elicit asks the person a server's form (elicitation/create); nil
	// declines every request (a headless run has nobody to ask).
	Elicit ElicitFunc
	// ElicitURL declares URL-mode elicitation too: Elicit is then also
	// given Elicitations with a URL, the page a server asks the person to
	// open. Without it a URL-mode request is declined.
	ElicitURL bool
	// RestartDelay is the wait before the first restart of a server that
	// stopped (0: DefaultRestartDelay), doubled for each next one;
	// MaxRestarts the failed restarts in a row before it is given up (0:
	// DefaultMaxRestarts).
	RestartDelay time.Duration
	MaxRestarts  int
	// CacheDir, when set, is where each server definition's last tool
	// list is kept (a file per definition, named by a hash of its
	// command, arguments, env names and URL): a server still starting is
	// offered by it from the first request, so that the tools of the
	// requests stay the same when it arrives late (the prompt cache
	// keeps its prefix); a call of one of those tools waits for the
	// server. "" keeps none: a server's tools join when it runs.
	CacheDir string
	// HideResources reports whether the named server's resources are
	// left out of mcp_resource's listing and of the servers it guesses
	// for a URI read without a server (a deny rule names that server's
	// tools, so its resources' names must not reach the model either);
	// nil hides none.
	HideResources func(server string) bool
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
	// progress routes progress notifications to the calls that run.
	progress progressRoutes
	// baselined is set once the first request took the tools (Baseline):
	// from then on, what changes for the model becomes notes (Notes).
	baselined bool
	notes     []string
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
		if s.state == StateStarting {
			s.known, s.offerKnown = m.loadKnown(s.cfg), c.Gate == nil
			s.wasKnown = s.known != nil
		}
		m.servers = append(m.servers, s)
	}
	taken := map[string]bool{}
	for _, s := range m.servers {
		if s.known != nil {
			s.provisional = s.build(s.known.Tools, taken, false)
			for _, t := range s.provisional {
				t.provisional = true
			}
		}
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
		if s.state != StateStarting || s.began {
			continue
		}
		s.began = true
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

// Tools returns the tools of the running servers, and of those still
// starting whose last tool list is known (see Options.CacheDir), sorted by
// name; a snapshot. mcp_resource is among them while a server that
// declares resources runs, or starts and declared them last time.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ts []tools.Tool
	resources := false
	for _, s := range m.servers {
		for _, t := range s.offered() {
			ts = append(ts, t)
		}
		resources = resources || s.offersResources()
	}
	if resources {
		ts = append(ts, resourceTool{m})
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
		out[i] = Status{Name: s.cfg.Name, State: s.state, Error: s.err, Tools: names, Resources: len(s.resources)}
		for _, p := range s.prompts {
			out[i].Prompts = append(out[i].Prompts, ToolName(s.cfg.Name, p.Name))
		}
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

// warnLocked warns without m.mu held by the caller's hook: the hook runs
// in its own goroutine.
func (m *Manager) warnLocked(format string, args ...any) {
	if m.opts.Warn != nil {
		msg := fmt.Sprintf(format, args...)
		go m.opts.Warn(msg)
	}
}
