// Package scriptedlsp is a small, deterministic Language Server for tests:
// it speaks LSP 3.17 (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/)
// on stdin/stdout, Content-Length framed JSON-RPC 2.0, from inside a test
// binary that re-executes itself: a test package's TestMain calls Main
// first, and its tests start the server with Command.
//
// Its language is plain text: a line holding "ERROR: msg" or "WARN: msg" is
// an error or a warning; "BREAKS other.txt: msg" is an error msg on the
// first line of other.txt (same directory); "NEEDS other.txt" is an error
// on its line while other.txt is neither open nor on disk (a closed
// document gone from disk gets an empty publish, as gopls and tsserver
// send); "def WORD" defines WORD for
// definition, references, hover and the symbol requests. Modes (the value
// of Env) script how the server behaves and fails.
package scriptedlsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// Env is the environment variable that makes a test binary serve: its
// value is the mode, one of the Mode constants.
const Env = "AGENT_SCRIPTED_LSP"

// The modes, values of Env.
const (
	// ModeNormal is a working server (see the package doc).
	ModeNormal = "normal"
	// ModeHang reads requests and answers none, not even initialize; it
	// exits (1) only when stdin closes, or when killed.
	ModeHang = "hang"
	// ModeHangAfterInit answers initialize and shutdown and honours exit,
	// but never publishes diagnostics nor answers any other request.
	ModeHangAfterInit = "hang-after-init"
	// ModeExitAtStart writes ExitAtStartMessage to stderr and exits 3
	// before reading anything.
	ModeExitAtStart = "exit-at-start"
	// ModeCrash is ModeNormal that exits 2, with a line on stderr, on
	// the Nth textDocument/didChange (CrashAfter, default 1), neither
	// answering nor publishing for it.
	ModeCrash = "crash"
	// ModeSlow is ModeNormal whose diagnostics are published, in order,
	// only once the file named by GateFile exists; requests are answered
	// meanwhile.
	ModeSlow = "slow"
	// ModeNoExit is ModeNormal that answers shutdown but ignores exit: it
	// ends only when stdin closes, or when killed.
	ModeNoExit = "no-exit"
	// ModeFlood is ModeNormal that, after each publish, sends it again,
	// with FloodHints hints added, every few milliseconds until it exits:
	// a server that never goes quiet.
	ModeFlood = "flood"
	// ModeBanner is ModeNormal that first writes BannerLine to stdout,
	// which is not LSP (as a wrapper script or npx's prompt may).
	ModeBanner = "banner"
)

// BannerLine is what ModeBanner writes to stdout before serving.
const BannerLine = "Starting scriptedlsp...\n"

// FloodHints is how many hints ModeFlood adds to each publish it repeats.
const FloodHints = 300

// ExitAtStartMessage is the stderr line of ModeExitAtStart.
const ExitAtStartMessage = "scriptedlsp: cannot start: no workspace"

// The environment variables of the Options.
const (
	envCrashAfter = Env + "_CRASH_AFTER"
	envLog        = Env + "_LOG"
	envGate       = Env + "_GATE"
	envVersions   = Env + "_VERSIONS"
	envEncode     = Env + "_ENCODE_URIS"
)

// How the server says the version of a publish (see Versions).
const (
	// VersionsNone leaves the version out of every publish.
	VersionsNone = "none"
	// VersionsNull sends "version": null.
	VersionsNull = "null"
	// VersionsStale follows each publish of an open document's version
	// with the publish of its version before, older version and all (an
	// out-of-order server).
	VersionsStale = "stale"
)

// EncodeURIs makes the server spell the URIs it publishes as
// vscode-uri does (typescript-language-server's library): '@' as %40,
// '+' as %2B, valid and the same file, not the client's spelling.
func EncodeURIs() Option { return Option(envEncode + "=1") }

// Versions changes how the server says versions in its publishes: one of
// VersionsNone, VersionsNull, VersionsStale (default: the document's
// version when it is open).
func Versions(how string) Option { return Option(envVersions + "=" + how) }

// Option is a setting of the server: one KEY=VALUE entry of its environment.
type Option string

// CrashAfter makes ModeCrash exit at the nth didChange (n >= 1).
func CrashAfter(n int) Option { return Option(envCrashAfter + "=" + strconv.Itoa(n)) }

// Log makes the server append each message it receives to the file at
// path, one line each: the method, then for textDocument/didOpen and
// didChange the version ("textDocument/didChange 3"), for initialize a
// JSON object {"rootUri":…,"initializationOptions":…}.
func Log(path string) Option { return Option(envLog + "=" + path) }

// GateFile names the file whose existence lets ModeSlow publish.
func GateFile(path string) Option { return Option(envGate + "=" + path) }

// Command returns the argv and env (KEY=VALUE entries to add to the
// child's environment) that start the current test binary
// (os.Executable) as a scripted server in mode, with opts as further env;
// env also sets GORACE's atexit_sleep_ms to 0 (keeping the rest of GORACE),
// so that a server built with -race exits at once.
// argv is nil when the executable cannot be found.
func Command(mode string, opts ...Option) (argv []string, env []string) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil
	}
	// A binary built with -race sleeps 1s at exit unless told not to.
	env = []string{Env + "=" + mode, "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}
	for _, o := range opts {
		env = append(env, string(o))
	}
	// -test.run matches no test, should Main not be called first.
	return []string{exe, "-test.run=^$"}, env
}

// Main serves LSP on stdin/stdout when os.Getenv(Env) != "" and then exits
// the process (it never returns in that case); otherwise it returns at
// once. A test package's TestMain calls it first.
func Main() {
	mode := os.Getenv(Env)
	if mode == "" {
		return
	}
	os.Exit(serve(mode))
}

// stdio is the server's side of the connection.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

// doc is an open document.
type doc struct {
	text    string
	version int32
}

// server is the state of one scripted server. Its handler runs on the
// connection's reading goroutine, one message after another.
type server struct {
	mode       string
	crashAfter int
	log        *os.File
	gate       string
	root       string
	docs       map[protocol.DocumentURI]*doc
	changes    int
	shutdown   atomic.Bool
	publishes  chan protocol.PublishDiagnosticsParams // ModeSlow's queue
	versions   string                                 // Versions's value
	// VersionsStale's last publish of each document, and that of its
	// version before.
	last, older map[protocol.DocumentURI]protocol.PublishDiagnosticsParams
}

func serve(mode string) int {
	switch mode {
	case ModeNormal, ModeHang, ModeHangAfterInit, ModeCrash, ModeSlow, ModeNoExit, ModeFlood:
	case ModeBanner:
		os.Stdout.WriteString(BannerLine)
		mode = ModeNormal
	case ModeExitAtStart:
		fmt.Fprintln(os.Stderr, ExitAtStartMessage)
		return 3
	default:
		fmt.Fprintf(os.Stderr, "scriptedlsp: unknown mode %q\n", mode)
		return 1
	}
	s := &server{mode: mode, crashAfter: 1, docs: map[protocol.DocumentURI]*doc{}, gate: os.Getenv(envGate),
		versions: os.Getenv(envVersions), last: map[protocol.DocumentURI]protocol.PublishDiagnosticsParams{},
		older: map[protocol.DocumentURI]protocol.PublishDiagnosticsParams{}}
	switch s.versions {
	case "", VersionsNone, VersionsNull, VersionsStale:
	default:
		fmt.Fprintf(os.Stderr, "scriptedlsp: %s=%q: want %s, %s or %s\n", envVersions, s.versions, VersionsNone, VersionsNull, VersionsStale)
		return 1
	}
	if v := os.Getenv(envCrashAfter); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "scriptedlsp: %s=%q: want a number >= 1\n", envCrashAfter, v)
			return 1
		}
		s.crashAfter = n
	}
	if p := os.Getenv(envLog); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scriptedlsp:", err)
			return 1
		}
		defer f.Close()
		s.log = f
	}
	if mode == ModeSlow {
		s.publishes = make(chan protocol.PublishDiagnosticsParams, 4096)
	}
	ctx := context.Background()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stdio{}, jsonrpc2.VSCodeObjectCodec{}),
		handler(s.handle))
	if s.publishes != nil {
		go s.publishGated(ctx, conn)
	}
	<-conn.DisconnectNotify()
	if s.shutdown.Load() {
		return 0
	}
	return 1
}

// logf appends one line to the log, if any.
func (s *server) logf(format string, args ...any) {
	if s.log != nil {
		fmt.Fprintf(s.log, format+"\n", args...)
	}
}

// noReply is the handler's error for a request it leaves unanswered.
var noReply = &jsonrpc2.Error{}

// handler answers each request with the result or error of its function,
// unless that error is noReply; it ignores notifications' results.
type handler func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error)

func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	result, err := h(ctx, conn, req)
	switch e, isRPC := err.(*jsonrpc2.Error); {
	case req.Notif || err == noReply:
	case isRPC:
		_ = conn.ReplyWithError(ctx, req.ID, e)
	case err != nil:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()})
	default:
		_ = conn.Reply(ctx, req.ID, result)
	}
}

func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var raw json.RawMessage
	if req.Params != nil {
		raw = *req.Params
	}
	s.record(req.Method, raw)
	if s.mode == ModeHang {
		return nil, noReply
	}
	switch req.Method {
	case "initialize":
		var p protocol.InitializeParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		s.root = rootOf(p)
		return initializeResult(), nil
	case "shutdown":
		s.shutdown.Store(true)
		return nil, nil
	case "exit":
		if s.mode == ModeNoExit {
			return nil, nil
		}
		if s.shutdown.Load() {
			os.Exit(0)
		}
		os.Exit(1)
	}
	if s.mode == ModeHangAfterInit {
		return nil, noReply
	}
	switch req.Method {
	case "initialized", "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration",
		"workspace/didChangeWatchedFiles", "workspace/didChangeWorkspaceFolders":
		return nil, nil
	case "textDocument/didOpen":
		var p protocol.DidOpenTextDocumentParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, nil
		}
		old := s.docs[p.TextDocument.URI]
		s.docs[p.TextDocument.URI] = &doc{p.TextDocument.Text, p.TextDocument.Version}
		s.changed(ctx, conn, p.TextDocument.URI, old)
	case "textDocument/didChange":
		var p protocol.DidChangeTextDocumentParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, nil
		}
		if s.changes++; s.mode == ModeCrash && s.changes == s.crashAfter {
			fmt.Fprintf(os.Stderr, "scriptedlsp: crashing at didChange %d\n", s.changes)
			os.Exit(2)
		}
		d := s.docs[p.TextDocument.URI]
		if d == nil {
			return nil, nil
		}
		old := *d
		for _, c := range p.ContentChanges {
			switch v := c.Value.(type) {
			case protocol.TextDocumentContentChangeWholeDocument:
				d.text = v.Text
			case protocol.TextDocumentContentChangePartial:
				d.text = v.Text // full sync: the whole text
			}
		}
		d.version = p.TextDocument.Version
		s.changed(ctx, conn, p.TextDocument.URI, &old)
	case "textDocument/didSave":
		var p protocol.DidSaveTextDocumentParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, nil
		}
		if d := s.docs[p.TextDocument.URI]; d != nil {
			old := *d
			if p.Text != nil {
				d.text = *p.Text
			}
			s.changed(ctx, conn, p.TextDocument.URI, &old)
		}
	case "textDocument/didClose":
		var p protocol.DidCloseTextDocumentParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, nil
		}
		if old := s.docs[p.TextDocument.URI]; old != nil {
			delete(s.docs, p.TextDocument.URI)
			if path, err := p.TextDocument.URI.Path(); err == nil && !exists(path) {
				s.publish(ctx, conn, p.TextDocument.URI) // gone: nothing to say of it
			}
			s.republish(ctx, conn, p.TextDocument.URI, old.text)
		}
	default:
		if req.Notif {
			return nil, nil
		}
		return s.answer(req.Method, raw)
	}
	return nil, nil
}

// record logs the message received.
func (s *server) record(method string, raw json.RawMessage) {
	switch method {
	case "initialize":
		var p struct {
			RootURI               any `json:"rootUri"`
			InitializationOptions any `json:"initializationOptions"`
		}
		_ = json.Unmarshal(raw, &p)
		b, _ := json.Marshal(map[string]any{"rootUri": p.RootURI, "initializationOptions": p.InitializationOptions})
		s.logf("%s %s", method, b)
	case "textDocument/didOpen", "textDocument/didChange":
		var p struct {
			TextDocument struct {
				Version int32 `json:"version"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(raw, &p)
		s.logf("%s %d", method, p.TextDocument.Version)
	default:
		s.logf("%s", method)
	}
}

// rootOf is the directory of the workspace: rootUri, else the first
// workspace folder, else rootPath.
func rootOf(p protocol.InitializeParams) string {
	if p.RootURI != "" {
		if r, err := p.RootURI.Path(); err == nil {
			return r
		}
	}
	if len(p.WorkspaceFolders) > 0 {
		if r, err := protocol.DocumentURI(p.WorkspaceFolders[0].URI).Path(); err == nil {
			return r
		}
	}
	return p.RootPath
}

func initializeResult() protocol.InitializeResult {
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true, Change: protocol.Full, Save: &protocol.SaveOptions{IncludeText: false},
			},
			DefinitionProvider:      &protocol.Or_ServerCapabilities_definitionProvider{Value: true},
			ReferencesProvider:      &protocol.Or_ServerCapabilities_referencesProvider{Value: true},
			HoverProvider:           &protocol.Or_ServerCapabilities_hoverProvider{Value: true},
			DocumentSymbolProvider:  &protocol.Or_ServerCapabilities_documentSymbolProvider{Value: true},
			WorkspaceSymbolProvider: &protocol.Or_ServerCapabilities_workspaceSymbolProvider{Value: true},
		},
		ServerInfo: &protocol.ServerInfo{Name: "scriptedlsp", Version: "1"},
	}
}

// changed publishes the diagnostics of the document at uri, then of the
// files its BREAKS lines named before (old, nil if it was not open) or
// name now.
func (s *server) changed(ctx context.Context, conn *jsonrpc2.Conn, uri protocol.DocumentURI, old *doc) {
	s.publish(ctx, conn, uri)
	oldText := ""
	if old != nil {
		oldText = old.text
	}
	s.republish(ctx, conn, uri, oldText)
}

// republish publishes the diagnostics of the files named by BREAKS lines
// of oldText or of the document at uri now, other than uri, each once.
func (s *server) republish(ctx context.Context, conn *jsonrpc2.Conn, uri protocol.DocumentURI, oldText string) {
	path, err := uri.Path()
	if err != nil {
		return
	}
	var targets []breaks
	if d := s.docs[uri]; d != nil {
		targets = breaksOf(path, d.text)
	}
	targets = append(targets, breaksOf(path, oldText)...)
	seen := map[string]bool{path: true}
	for _, b := range targets {
		if !seen[b.file] {
			seen[b.file] = true
			s.publish(ctx, conn, protocol.URIFromPath(b.file))
		}
	}
	for _, other := range s.openURIs() { // the documents that need this one
		op, err := other.Path()
		if err != nil || seen[op] {
			continue
		}
		for _, n := range needsOf(op, s.docs[other].text) {
			if filepath.Clean(n.file) == filepath.Clean(path) {
				seen[op] = true
				s.publish(ctx, conn, other)
				break
			}
		}
	}
}

// diagnostics of the file at uri: its own markers, then the BREAKS of the
// open documents (in URI order) that name it.
func (s *server) diagnostics(uri protocol.DocumentURI) []protocol.Diagnostic {
	text := s.textOf(uri)
	out := markerDiagnostics(text)
	path, err := uri.Path()
	if err != nil {
		return out
	}
	for _, n := range needsOf(path, text) {
		if s.docs[protocol.URIFromPath(n.file)] == nil && !exists(n.file) {
			out = append(out, protocol.Diagnostic{Range: lineRange(n.line, n.text, n.at), Severity: protocol.SeverityError,
				Source: "scriptedlsp", Message: n.name + ": no such file"})
		}
	}
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSuffix(first, "\r")
	for _, other := range s.openURIs() {
		op, err := other.Path()
		if err != nil {
			continue
		}
		for _, b := range breaksOf(op, s.docs[other].text) {
			if filepath.Clean(b.file) == filepath.Clean(path) {
				out = append(out, protocol.Diagnostic{
					Range: lineRange(0, first, 0), Severity: protocol.SeverityError,
					Source: "scriptedlsp", Message: b.msg,
				})
			}
		}
	}
	return out
}

// publish sends textDocument/publishDiagnostics for the file at uri, with
// its version when it is open.
func (s *server) publish(ctx context.Context, conn *jsonrpc2.Conn, uri protocol.DocumentURI) {
	p := protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: s.diagnostics(uri)}
	if p.Diagnostics == nil {
		p.Diagnostics = []protocol.Diagnostic{}
	}
	if d := s.docs[uri]; d != nil {
		p.Version = d.version
	}
	if s.publishes != nil {
		s.publishes <- p
		return
	}
	s.send(ctx, conn, p)
	if s.mode == ModeFlood {
		go flood(ctx, conn, p)
	}
	if s.versions != VersionsStale {
		return
	}
	if cur, ok := s.last[uri]; ok && cur.Version < p.Version {
		s.older[uri] = cur
	}
	s.last[uri] = p
	if prev, ok := s.older[uri]; ok && prev.Version < p.Version {
		s.send(ctx, conn, prev)
	}
}

// send sends one publish, its version as Versions says.
func (s *server) send(ctx context.Context, conn *jsonrpc2.Conn, p protocol.PublishDiagnosticsParams) {
	if os.Getenv(envEncode) != "" {
		p.URI = protocol.DocumentURI(strings.NewReplacer("@", "%40", "+", "%2B").Replace(string(p.URI)))
	}
	switch s.versions {
	case VersionsNone:
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": p.URI, "diagnostics": p.Diagnostics})
	case VersionsNull:
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": p.URI, "version": nil, "diagnostics": p.Diagnostics})
	default:
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", p)
	}
}

// flood sends p, with FloodHints hints more, every few milliseconds until
// the connection ends.
func flood(ctx context.Context, conn *jsonrpc2.Conn, p protocol.PublishDiagnosticsParams) {
	p.Diagnostics = append([]protocol.Diagnostic(nil), p.Diagnostics...)
	for i := range FloodHints {
		p.Diagnostics = append(p.Diagnostics, protocol.Diagnostic{Severity: protocol.SeverityHint, Source: "scriptedlsp",
			Message: fmt.Sprintf("hint %d", i), Range: protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 0}}})
	}
	for {
		select {
		case <-conn.DisconnectNotify():
			return
		case <-time.After(5 * time.Millisecond):
		}
		if conn.Notify(ctx, "textDocument/publishDiagnostics", p) != nil {
			return
		}
	}
}

// publishGated sends ModeSlow's queued diagnostics once the gate exists.
func (s *server) publishGated(ctx context.Context, conn *jsonrpc2.Conn) {
	for p := range s.publishes {
		for s.gate == "" || !exists(s.gate) {
			select {
			case <-conn.DisconnectNotify():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", p)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

var _ io.ReadWriteCloser = stdio{}
