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
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/telemetry/tracecontext"
	"github.com/agent-dev/agent/tools"
)

// server is one configured server. Fields below ready are guarded by m.mu.
type server struct {
	cfg   Config
	m     *Manager
	ready chan struct{} // closed once the server runs or failed
	cmd   *exec.Cmd     // a stdio server's current process (guarded by m.mu)
	tail  *tailBuffer   // a stdio server's last stderr
	// deadline is the latest start's (see startContext), read by an
	// authorization, which may come from an earlier connection's request
	// while a restart sets it.
	deadline atomic.Pointer[startDeadline]

	state     State
	err       string
	session   *sdk.ClientSession
	tools     []*tool
	prompts   []*sdk.Prompt
	resources []*sdk.Resource
	readyOnce sync.Once
	skipped   map[string]bool // tools skipped for their schema, warned about
	closing   bool
	listing   sync.Mutex // one tool listing at a time

	// listed is the server's latest tool list as it sent it; known the
	// list kept for its definition (loaded when configured, kept anew as
	// it changes; nil: none yet), provisional its tools, offered while
	// the server starts once offerKnown (its gate passed, or it has
	// none). began says Start started it; arrived that it ran once;
	// wasKnown that its list was known when it was configured.
	listed      []*sdk.Tool
	known       *knownList
	wasKnown    bool
	provisional []*tool
	offerKnown  bool
	began       bool
	arrived     bool
}

// connect starts the server, connects, lists its tools, prompts and
// resources, and marks it running. ok is false when any of it failed: the
// reason is returned and what was started is stopped.
//
// The older HTTP+SSE transport keeps the context of the connection for its
// event stream: it is cancelled only when the session ended (end), not
// when connect returns.
func (s *server) connect(ctx context.Context) (cs *sdk.ClientSession, end func(), reason string) {
	sctx, cancel := s.startContext(ctx)
	// Close cuts a start short (the server's process group is killed):
	// an agent that is done never waits for a server slow to start.
	unquit := context.AfterFunc(s.m.quit, cancel)
	cs, reason = s.handshake(ctx, sctx)
	unquit()
	if cs == nil {
		cancel()
		return nil, nil, reason
	}
	s.deadline.Load().settle() // started: the connection's context lives on
	return cs, cancel, ""
}

// handshake is connect's work, bounded by sctx.
func (s *server) handshake(ctx, sctx context.Context) (cs *sdk.ClientSession, reason string) {
	client := s.newClient(ctx)
	transport, err := s.transport()
	if err != nil {
		return nil, err.Error()
	}
	cs, err = client.Connect(sctx, transport, nil)
	if err == nil {
		s.m.mu.Lock()
		s.session = cs
		closing := s.closing
		s.m.mu.Unlock()
		if closing {
			s.disconnect()
			return nil, "stopped before it started"
		}
		err = s.list(sctx)
		if err == nil {
			// Prompts and resources are extras: a server that fails to
			// list them still offers its tools.
			for _, list := range []func(context.Context) error{s.listPrompts, s.listResources} {
				if lerr := list(sctx); lerr != nil {
					s.m.warn("MCP server %s: %v", s.cfg.Name, lerr)
				}
			}
		}
	}
	if err != nil {
		if context.Cause(sctx) == context.DeadlineExceeded {
			err = fmt.Errorf("did not start within %s", s.cfg.StartupTimeout)
		}
		reason = s.reason(err)
		if cs != nil {
			s.disconnect()
		} else if c := s.process(); c != nil {
			killGroup(c) // started, but the handshake failed
		}
		return nil, reason
	}
	s.m.mu.Lock()
	s.state, s.err = StateRunning, ""
	s.arriveLocked(cs)
	s.m.mu.Unlock()
	return cs, ""
}

// died records that a running server's session ended without Close:
// its tools go until it is restarted (see run). A call that finds the
// connection closed calls it too, so the next request no longer offers
// the tools; it closes the session, which ends run's wait.
func (s *server) died(why error) {
	if why == nil {
		why = fmt.Errorf("stopped")
	}
	s.m.mu.Lock()
	report := !s.closing && s.state == StateRunning
	if report {
		s.state, s.err, s.tools, s.prompts, s.resources = StateReconnecting, s.reason(why), nil, nil, nil
	}
	cs := s.session
	s.m.mu.Unlock()
	if report {
		s.m.changed()
		if cs != nil {
			_ = cs.Close()
		}
	}
}

// transport returns the server's transport: a child process or HTTP.
func (s *server) transport() (sdk.Transport, error) {
	if s.cfg.URL != "" {
		// A request joins the trace of the tool call that sends it
		// (traceparent).
		client := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, base: tracecontext.Transport(http.DefaultTransport)}}
		if s.cfg.SSE {
			return &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
		}
		// The SDK resumes a dropped stream (Last-Event-ID, after the
		// server's SSE retry or its own backoff); when it gives up, the
		// session ends and run restarts the server.
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, OAuthHandler: s.authHandler()}, nil
	}
	if s.cfg.Command == "" {
		return nil, fmt.Errorf("neither command nor url is set")
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir, cmd.Env = s.cfg.Dir, s.cfg.Env
	if s.tail == nil {
		s.tail = &tailBuffer{max: 2048}
	}
	cmd.Stderr = s.tail
	setProcessGroup(cmd)
	s.m.mu.Lock()
	s.cmd = nil // the last connection's; this one's once it started
	s.m.mu.Unlock()
	warn := func(line string) {
		s.m.warn("MCP server %s printed a line that is not JSON-RPC on its standard output before its first message, skipped with any others before it: %q", s.cfg.Name, line)
	}
	// The process is the server's from its start on (not before: its
	// Process is set by Start), and a start Close overtook is undone.
	started := func() {
		s.m.mu.Lock()
		s.cmd = cmd
		closing := s.closing
		s.m.mu.Unlock()
		if closing {
			killGroup(cmd)
		}
	}
	return &stdioTransport{cmd: cmd, terminate: 2 * time.Second, warn: warn, started: started}, nil
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

func (s *server) errText() string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.err
}

// stop closes the session and kills what is left of the process group;
// the server is not restarted.
func (s *server) stop() {
	s.m.mu.Lock()
	s.closing = true
	s.m.mu.Unlock()
	s.disconnect()
}

// disconnect closes the current session and kills what is left of the
// process group.
func (s *server) disconnect() {
	s.m.mu.Lock()
	cs, cmd := s.session, s.cmd
	s.m.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if cmd != nil {
		killGroup(cmd)
	}
}

// process is the stdio server's current process, nil for HTTP.
func (s *server) process() *exec.Cmd {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.cmd
}

// refresh lists again (list: the tools, prompts or resources) after a
// list_changed notification.
func (s *server) refresh(ctx context.Context, list func(context.Context) error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	defer context.AfterFunc(s.m.quit, cancel)()
	if err := list(ctx); err != nil {
		if s.m.quit.Err() == nil {
			s.m.warn("MCP server %s: %v", s.cfg.Name, err)
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
			for _, t := range o.offered() {
				taken[t.name] = true
			}
		}
	}
	s.tools, s.listed = s.build(all, taken, true), all
	if s.state == StateRunning { // a list_changed: the start's list is kept by arrived
		s.keepLocked()
	}
	return nil
}

// build makes the tools of the server's list all, named apart from the
// names taken (which it extends), sorted by name. A tool whose schema does
// not compile is skipped, with a warning when warn is set (once per tool).
// m.mu is held, or the manager is not yet shared.
func (s *server) build(all []*sdk.Tool, taken map[string]bool, warn bool) []*tool {
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
			if warn && !s.skipped[st.Name] { // once, not again at each list_changed
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
	return ts
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
