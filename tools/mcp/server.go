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

// server is one configured server. Fields below ready are guarded by m.mu.
type server struct {
	cfg   Config
	m     *Manager
	ready chan struct{} // closed once the server runs or failed
	cmd   *exec.Cmd     // a stdio server's process
	tail  *tailBuffer   // a stdio server's last stderr
	// deadline is the start's (see startContext); set before the start.
	deadline *startDeadline

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
	sctx, cancel := s.startContext(ctx)
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
		if context.Cause(sctx) == context.DeadlineExceeded {
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
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxRetries: -1, OAuthHandler: s.authHandler()}, nil
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
