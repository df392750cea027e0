package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// conn is one running server process and its JSON-RPC connection.
// Nothing sent to it blocks its caller: messages go out through one
// goroutine, in order, so a server that stops reading its input holds
// only that goroutine (until the process is killed).
type conn struct {
	srv  Server
	cmd  *exec.Cmd
	rpc  *jsonrpc2.Conn
	out  chan func()   // messages to send, in order
	done chan struct{} // closed when the process exited
	// exitErr is why the process ended (set before done closes).
	exitErr error
	stderr  *tail
	// stdout is the server's standard output as the connection reads it:
	// whether what the server wrote was all read (quiet is not a flood
	// left unread).
	stdout *watchedReader

	caps     protocol.ServerCapabilities
	utf8     bool // positions count UTF-8 bytes (else UTF-16 units)
	settings any

	mu    sync.Mutex
	diags map[protocol.DocumentURI]published
	seq   uint64        // counts publishes
	pub   chan struct{} // closed and replaced at each publish
	last  time.Time     // when the last publish came
	// asked is when a document was opened or changed with no publish
	// since (zero: none waits); slowest the longest such wait seen, how
	// long this server takes to check on this machine now (see
	// silenceMeansNothing).
	asked   time.Time
	slowest time.Duration
	// versioned is true once the server said a version in a publish:
	// then a change's publish can be waited for by its version.
	versioned bool
}

// published is the last publishDiagnostics of one document.
type published struct {
	version    int32
	hasVersion bool
	seq        uint64
	list       []protocol.Diagnostic
}

// outQueue bounds the messages waiting to be sent to a server that does
// not read them; past it the server counts as hung.
const outQueue = 256

// errHung is a server that stopped reading what it is sent.
var errHung = errors.New("stopped reading its input")

// start starts srv in dir with env and initializes it with root as its
// workspace folder. ctx bounds the initialization only; the process lives
// until close.
func start(ctx context.Context, srv Server, dir, root string, env []string) (*conn, error) {
	cmd := exec.Command(srv.Command, srv.Args...)
	// A copy: servers start at once from the one session's environment.
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), srv.Env...)
	cmd.WaitDelay = time.Second // what it started and left holding stderr does not hold Wait
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &conn{srv: srv, cmd: cmd, out: make(chan func(), outQueue), done: make(chan struct{}), stderr: &tail{max: 2048},
		stdout: &watchedReader{f: stdout.(*os.File)}, diags: map[protocol.DocumentURI]published{}, pub: make(chan struct{}), settings: srv.Settings}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", srv.Command, err)
	}
	codec := &checkedCodec{}
	stream := jsonrpc2.NewBufferedStream(pipes{c.stdout, stdin}, codec)
	c.rpc = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	go c.send()
	go func() {
		// A server whose output is not LSP cannot be understood: the
		// connection closes its input, and one that does not exit then
		// is killed.
		select {
		case <-c.rpc.DisconnectNotify():
		case <-c.done:
			return
		}
		if codec.failed() == nil {
			return
		}
		t := time.NewTimer(notLSPGrace)
		defer t.Stop()
		select {
		case <-c.done:
		case <-t.C:
			killGroup(cmd)
		}
	}()
	go func() {
		err := cmd.Wait()
		killGroup(cmd) // what it started dies with it
		if err == nil {
			err = errors.New("exited")
		}
		if perr := codec.failed(); perr != nil {
			err = fmt.Errorf("%w after writing what is not LSP on its standard output (%v)", err, perr)
		}
		if t := c.stderr.String(); t != "" {
			err = fmt.Errorf("%w: %s", err, t)
		}
		c.exitErr = err
		close(c.done)
		c.rpc.Close()
	}()
	if err := c.initialize(ctx, root); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// notLSPGrace is how long a server whose output is not LSP has to exit
// once its input is closed, before it is killed.
const notLSPGrace = 200 * time.Millisecond

// checkedCodec is LSP's framing (jsonrpc2.VSCodeObjectCodec) that keeps
// the first error reading a server's output other than its end.
type checkedCodec struct {
	jsonrpc2.VSCodeObjectCodec
	mu  sync.Mutex
	err error
}

func (k *checkedCodec) ReadObject(stream *bufio.Reader, v any) error {
	err := k.VSCodeObjectCodec.ReadObject(stream, v)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) {
		k.mu.Lock()
		if k.err == nil {
			k.err = err
		}
		k.mu.Unlock()
	}
	return err
}

// failed is the first error of the server's output that is not LSP.
func (k *checkedCodec) failed() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// pipes joins a process's standard output and input.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { p.w.Close(); return p.ReadCloser.Close() }

// send sends the queued messages until the process ends.
func (c *conn) send() {
	for {
		select {
		case f := <-c.out:
			f()
		case <-c.done:
			return
		}
	}
}

// enqueue queues f to be sent; a full queue means the server stopped
// reading, and kills it.
func (c *conn) enqueue(f func()) error {
	select {
	case <-c.done:
		return c.exitErr
	default:
	}
	select {
	case c.out <- f:
		return nil
	default:
		c.kill()
		return errHung
	}
}

// notify sends a notification without waiting.
func (c *conn) notify(method string, params any) error {
	return c.enqueue(func() {
		if method == "textDocument/didOpen" || method == "textDocument/didChange" {
			c.mu.Lock()
			if c.asked.IsZero() {
				c.asked = time.Now()
			}
			c.mu.Unlock()
		}
		_ = c.rpc.Notify(context.Background(), method, params)
	})
}

// call sends a request and waits for its result until ctx ends or the
// server exits.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	type sent struct {
		w   jsonrpc2.Waiter
		err error
	}
	if err := ctx.Err(); err != nil {
		return err // cancelled already: nothing is sent (select would pick at random)
	}
	ch := make(chan sent, 1)
	if err := c.enqueue(func() {
		w, err := c.rpc.DispatchCall(context.Background(), method, params)
		ch <- sent{w, err}
	}); err != nil {
		return err
	}
	var s sent
	select {
	case s = <-ch:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return fmt.Errorf("%s %w", c.srv.Name, c.exitErr)
	}
	if errors.Is(s.err, jsonrpc2.ErrClosed) {
		select {
		case <-c.done:
			return fmt.Errorf("%s %w", c.srv.Name, c.exitErr)
		case <-ctx.Done():
		}
	}
	if s.err != nil {
		return s.err
	}
	err := s.w.Wait(ctx, result)
	if errors.Is(err, jsonrpc2.ErrClosed) {
		// The connection closes as the process ends: say why it ended.
		select {
		case <-c.done:
			return fmt.Errorf("%s %w", c.srv.Name, c.exitErr)
		case <-ctx.Done():
		}
	}
	return err
}

// initialize performs the initialize handshake.
func (c *conn) initialize(ctx context.Context, root string) error {
	uri := protocol.URIFromPath(root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "agent"},
		"rootUri":          uri,
		"rootPath":         root,
		"workspaceFolders": []protocol.WorkspaceFolder{{URI: string(uri), Name: root}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
				"definition":         map[string]any{"linkSupport": false},
				"implementation":     map[string]any{"linkSupport": false},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true, "symbol": map[string]any{}},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	if c.srv.InitOptions != nil {
		params["initializationOptions"] = c.srv.InitOptions
	}
	var res protocol.InitializeResult
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s did not answer initialize", c.srv.Name)
		}
		return err
	}
	c.caps = res.Capabilities
	c.utf8 = res.Capabilities.PositionEncoding != nil && *res.Capabilities.PositionEncoding == "utf-8"
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return err
	}
	if c.settings != nil {
		return c.notify("workspace/didChangeConfiguration", map[string]any{"settings": c.settings})
	}
	return nil
}

// handle answers the server's requests and takes its notifications.
func (c *conn) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, nil
		}
		// "version": null, or none, is a publish of no particular version
		// (a diagnostic's own "version" field is no version either).
		var v struct {
			Version *int32 `json:"version"`
		}
		_ = json.Unmarshal(*req.Params, &v)
		hasVersion := v.Version != nil
		c.mu.Lock()
		if old, ok := c.diags[p.URI]; ok && hasVersion && old.hasVersion && p.Version < old.version {
			c.mu.Unlock() // an older version's, late: the newer stands
			return nil, nil
		}
		c.seq++
		c.diags[p.URI] = published{version: p.Version, hasVersion: hasVersion, seq: c.seq, list: p.Diagnostics}
		c.versioned = c.versioned || hasVersion
		c.last = time.Now()
		if !c.asked.IsZero() {
			c.slowest = max(c.slowest, c.last.Sub(c.asked))
			c.asked = time.Time{}
		}
		close(c.pub)
		c.pub = make(chan struct{})
		c.mu.Unlock()
		return nil, nil
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = c.settings
		}
		return out, nil
	case "workspace/workspaceFolders":
		return nil, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest":
		return nil, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "agent applies no edit a language server asks for"}, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not supported: " + req.Method}
}

// snapshot returns the last diagnostics of every document and the publish
// count.
func (c *conn) snapshot() (map[protocol.DocumentURI]published, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[protocol.DocumentURI]published, len(c.diags))
	for k, v := range c.diags {
		m[k] = v
	}
	return m, c.seq
}

// forget drops uri's diagnostics (a document closed because its file is
// gone): they count and show no more, and its next publish starts anew.
func (c *conn) forget(uri protocol.DocumentURI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.diags, uri)
}

// published returns uri's last publish, the publish count and a channel
// closed at the next publish.
func (c *conn) published(uri protocol.DocumentURI) (published, bool, uint64, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.diags[uri]
	return p, ok, c.seq, c.pub
}

// close asks the server to shut down and exit, waiting at most until ctx
// ends, then kills its process group.
func (c *conn) close(ctx context.Context) {
	select {
	case <-c.done:
		return
	default:
	}
	if c.call(ctx, "shutdown", nil, nil) == nil {
		_ = c.notify("exit", nil)
		select {
		case <-c.done:
		case <-ctx.Done():
		}
	}
	c.kill()
}

// kill kills the server's process group and waits for the process.
func (c *conn) kill() {
	killGroup(c.cmd)
	<-c.done
}

// exited reports whether the process ended.
func (c *conn) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// tail keeps the last max bytes written to it (a server's standard
// error, for the note that says why it ended).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// String is the last line or two written, trimmed.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	lines := strings.Split(s, "\n")
	if len(lines) > 2 {
		lines = lines[len(lines)-2:]
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}
