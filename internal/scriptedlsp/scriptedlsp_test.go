package scriptedlsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// wait bounds every wait on the server: a server that does not answer
// fails the test instead of hanging it.
const wait = 20 * time.Second

// client is a test's LSP client of one scripted server process.
type client struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *jsonrpc2.Conn
	stderr bytes.Buffer
	diags  chan protocol.PublishDiagnosticsParams
	once   sync.Once
	err    error
}

type pipes struct {
	io.Reader
	io.WriteCloser
}

// start starts the test binary as a server in mode; the test's cleanup
// closes its stdin and waits for it to exit.
func start(t *testing.T, mode string, opts ...Option) *client {
	t.Helper()
	argv, env := Command(mode, opts...)
	if argv == nil {
		t.Fatal("Command: no executable")
	}
	c := &client{t: t, diags: make(chan protocol.PublishDiagnosticsParams, 256)}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(pipes{stdout, c.stdin}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*req.Params, &p); err != nil {
					t.Errorf("publishDiagnostics: %v", err)
				}
				c.diags <- p
			}
			return nil, nil
		}))
	t.Cleanup(func() {
		c.stdin.Close()
		c.wait()
		c.conn.Close()
	})
	return c
}

// wait waits for the process to exit and returns its error.
func (c *client) wait() error {
	c.once.Do(func() { c.err = c.cmd.Wait() })
	return c.err
}

// exitCode waits for the process and returns its exit code.
func (c *client) exitCode() int {
	c.t.Helper()
	err := c.wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		c.t.Fatal(err)
	}
	return c.cmd.ProcessState.ExitCode()
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// initialize runs the handshake with root as rootUri.
func (c *client) initialize(root string, options any) protocol.InitializeResult {
	c.t.Helper()
	var p protocol.InitializeParams
	p.ProcessID = int32(os.Getpid())
	p.RootURI = protocol.URIFromPath(root)
	p.InitializationOptions = options
	var res protocol.InitializeResult
	c.call("initialize", p, &res)
	c.notify("initialized", struct{}{})
	return res
}

func (c *client) open(path, text string, version int32) {
	c.t.Helper()
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: protocol.URIFromPath(path), LanguageID: "plaintext", Version: version, Text: text,
	}})
}

func (c *client) change(path, text string, version int32) {
	c.t.Helper()
	var p protocol.DidChangeTextDocumentParams
	p.TextDocument.URI = protocol.URIFromPath(path)
	p.TextDocument.Version = version
	p.ContentChanges = []protocol.TextDocumentContentChangeEvent{{Value: protocol.TextDocumentContentChangeWholeDocument{Text: text}}}
	c.notify("textDocument/didChange", p)
}

// next is the next diagnostics published.
func (c *client) next() protocol.PublishDiagnosticsParams {
	c.t.Helper()
	select {
	case p := <-c.diags:
		return p
	case <-time.After(wait):
		c.t.Fatal("no diagnostics published")
		return protocol.PublishDiagnosticsParams{}
	}
}

// none checks that nothing was published so far.
func (c *client) none() {
	c.t.Helper()
	select {
	case p := <-c.diags:
		c.t.Fatalf("unexpected diagnostics %+v", p)
	default:
	}
}

// close shuts the server down and checks it exits 0.
func (c *client) close() {
	c.t.Helper()
	var null json.RawMessage
	c.call("shutdown", nil, &null)
	if string(null) != "null" {
		c.t.Errorf("shutdown answered %s, want null", null)
	}
	c.notify("exit", nil)
	if code := c.exitCode(); code != 0 {
		c.t.Errorf("exit code %d after exit, want 0; stderr %s", code, c.stderr.String())
	}
}

// summary is a diagnostic as "LINE:START-END SEVERITY MESSAGE".
func summary(ds []protocol.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		r := d.Range
		out = append(out, strings.Join([]string{
			itoa(r.Start.Line) + ":" + itoa(r.Start.Character) + "-" + itoa(r.End.Line) + ":" + itoa(r.End.Character),
			itoa(uint32(d.Severity)), d.Message}, " "))
	}
	return out
}

func itoa(n uint32) string { b, _ := json.Marshal(n); return string(b) }

func check(t *testing.T, p protocol.PublishDiagnosticsParams, path string, version int32, want ...string) {
	t.Helper()
	if p.URI != protocol.URIFromPath(path) || p.Version != version {
		t.Errorf("published for %s version %d, want %s version %d", p.URI, p.Version, protocol.URIFromPath(path), version)
	}
	if got := summary(p.Diagnostics); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics of %s:\n%s\nwant:\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNormalPublishesMarkersWithTheVersion(t *testing.T) {
	dir := t.TempDir()
	c := start(t, ModeNormal)
	res := c.initialize(dir, nil)
	if res.ServerInfo == nil || res.ServerInfo.Name != "scriptedlsp" {
		t.Errorf("serverInfo %+v", res.ServerInfo)
	}
	caps, _ := json.Marshal(res.Capabilities)
	for _, want := range []string{`"change":1`, `"save":{}`, `"definitionProvider":true`, `"referencesProvider":true`,
		`"hoverProvider":true`, `"documentSymbolProvider":true`, `"workspaceSymbolProvider":true`} {
		if !bytes.Contains(caps, []byte(want)) {
			t.Errorf("capabilities %s lack %s", caps, want)
		}
	}
	a := filepath.Join(dir, "a.txt")
	c.open(a, "ok\nx ERROR:  bad thing \nWARN: careful", 1)
	check(t, c.next(), a, 1, "1:2-1:20 1 bad thing", "2:0-2:13 2 careful")
	c.change(a, "fine", 2)
	check(t, c.next(), a, 2)
	c.notify("textDocument/didSave", protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(a)}})
	check(t, c.next(), a, 2)
	c.close()
}

func TestBreaksPublishesAndRetractsAnotherFile(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.txt")
	if err := os.WriteFile(b, []byte("first line\nWARN: own"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, ModeNormal)
	c.initialize(dir, nil)
	a := filepath.Join(dir, "a.txt")
	c.open(a, "BREAKS b.txt: b is broken\nERROR: a too", 1)
	check(t, c.next(), a, 1, "1:0-1:12 1 a too")
	check(t, c.next(), b, 0, "1:0-1:9 2 own", "0:0-0:10 1 b is broken")
	c.change(a, "nothing", 2)
	check(t, c.next(), a, 2)
	check(t, c.next(), b, 0, "1:0-1:9 2 own")
	c.close()
}

func TestNavigation(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.txt")
	if err := os.WriteFile(lib, []byte("def foo\ndef bar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, ModeNormal)
	c.initialize(dir, nil)
	a := filepath.Join(dir, "a.txt")
	c.open(a, "call foo here\nfoo, food", 1)
	c.next()
	pos := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(a)},
		Position: protocol.Position{Line: 0, Character: 6}}

	var def protocol.Location
	c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: pos}, &def)
	if want := (protocol.Location{URI: protocol.URIFromPath(lib), Range: protocol.Range{
		Start: protocol.Position{Line: 0, Character: 4}, End: protocol.Position{Line: 0, Character: 7}}}); def != want {
		t.Errorf("definition %+v, want %+v", def, want)
	}

	var refs []protocol.Location
	c.call("textDocument/references", protocol.ReferenceParams{TextDocumentPositionParams: pos,
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &refs)
	var got []string
	for _, r := range refs {
		got = append(got, filepath.Base(string(r.URI))+" "+itoa(r.Range.Start.Line)+":"+itoa(r.Range.Start.Character))
	}
	if want := "a.txt 0:5,a.txt 1:0,lib.txt 0:4"; strings.Join(got, ",") != want {
		t.Errorf("references %v, want %s", got, want)
	}

	var hover protocol.Hover
	c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: pos}, &hover)
	if hover.Contents.Kind != protocol.Markdown || hover.Contents.Value != "foo: scripted hover" {
		t.Errorf("hover %+v", hover)
	}

	var syms []protocol.SymbolInformation
	c.call("textDocument/documentSymbol", protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(lib)}}, &syms)
	if len(syms) != 2 || syms[0].Name != "foo" || syms[1].Name != "bar" || syms[1].Location.Range.Start.Line != 1 {
		t.Errorf("documentSymbol %+v", syms)
	}
	syms = nil
	c.call("workspace/symbol", protocol.WorkspaceSymbolParams{Query: "ba"}, &syms)
	if len(syms) != 1 || syms[0].Name != "bar" {
		t.Errorf("workspace/symbol %+v", syms)
	}
	c.close()
}

func TestHangNeverAnswersInitialize(t *testing.T) {
	c := start(t, ModeHang)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.conn.Call(ctx, "initialize", protocol.InitializeParams{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("initialize returned %v, want the context's deadline", err)
	}
	c.stdin.Close()
	if code := c.exitCode(); code != 1 {
		t.Errorf("exit code %d once stdin closed, want 1", code)
	}
}

func TestHangAfterInitAnswersOnlyTheLifecycle(t *testing.T) {
	dir := t.TempDir()
	c := start(t, ModeHangAfterInit)
	c.initialize(dir, nil)
	c.open(filepath.Join(dir, "a.txt"), "ERROR: x", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := c.conn.Call(ctx, "textDocument/hover", protocol.HoverParams{}, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hover returned %v, want the context's deadline", err)
	}
	var null json.RawMessage
	c.call("shutdown", nil, &null)
	c.none() // the server handles messages in order: a publish would have come before shutdown's answer
	c.notify("exit", nil)
	if code := c.exitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

func TestExitAtStart(t *testing.T) {
	c := start(t, ModeExitAtStart)
	if code := c.exitCode(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	if got := c.stderr.String(); got != ExitAtStartMessage+"\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestCrashExitsAtTheNthChange(t *testing.T) {
	dir := t.TempDir()
	c := start(t, ModeCrash, CrashAfter(2))
	c.initialize(dir, nil)
	a := filepath.Join(dir, "a.txt")
	c.open(a, "ERROR: one", 1)
	check(t, c.next(), a, 1, "0:0-0:10 1 one")
	c.change(a, "ERROR: two", 2)
	check(t, c.next(), a, 2, "0:0-0:10 1 two")
	c.change(a, "ERROR: three", 3)
	if code := c.exitCode(); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(c.stderr.String(), "crashing at didChange 2") {
		t.Errorf("stderr %q", c.stderr.String())
	}
	select {
	case <-c.conn.DisconnectNotify():
	case <-time.After(wait):
		t.Fatal("connection still open after the server exited")
	}
	c.none()
}

func TestLogRecordsWhatTheClientSent(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	c := start(t, ModeNormal, Log(log))
	c.initialize(dir, map[string]string{"k": "v"})
	a := filepath.Join(dir, "a.txt")
	c.open(a, "x", 1)
	c.next()
	c.change(a, "y", 2)
	c.next()
	c.notify("textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(a)}})
	c.close()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := json.Marshal(protocol.URIFromPath(dir))
	want := `initialize {"initializationOptions":{"k":"v"},"rootUri":` + string(root) + `}
initialized
textDocument/didOpen 1
textDocument/didChange 2
textDocument/didClose
shutdown
exit
`
	if string(b) != want {
		t.Errorf("log:\n%s\nwant:\n%s", b, want)
	}
}

func TestSlowPublishesOnceTheGateExists(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	c := start(t, ModeSlow, GateFile(gate))
	c.initialize(dir, nil)
	a := filepath.Join(dir, "a.txt")
	c.open(a, "WARN: w", 1)
	var hover protocol.Hover
	c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(a)}}}, &hover)
	c.none() // answered, not published
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, c.next(), a, 1, "0:0-0:7 2 w")
	c.close()
}

func TestNeedsIsAnErrorOnceTheFileIsClosedAndGone(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.WriteFile(a, []byte("def Add\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, ModeNormal)
	c.initialize(dir, nil)
	c.open(a, "def Add\n", 1)
	check(t, c.next(), a, 1)
	c.open(b, "x\n  NEEDS a.txt\n", 1)
	check(t, c.next(), b, 1)
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.URIFromPath(a)}})
	check(t, c.next(), a, 0)
	check(t, c.next(), b, 1, "1:2-1:13 1 a.txt: no such file")
	c.close()
}

func TestVersionsStaleRepublishesTheVersionBefore(t *testing.T) {
	dir := t.TempDir()
	c := start(t, ModeNormal, Versions(VersionsStale))
	c.initialize(dir, nil)
	a := filepath.Join(dir, "a.txt")
	c.open(a, "ok", 1)
	check(t, c.next(), a, 1)
	c.change(a, "ERROR: new", 2)
	check(t, c.next(), a, 2, "0:0-0:10 1 new")
	check(t, c.next(), a, 1)
	c.close()
}

func TestNoExitIgnoresExitUntilStdinCloses(t *testing.T) {
	dir := t.TempDir()
	c := start(t, ModeNoExit)
	c.initialize(dir, nil)
	var null json.RawMessage
	c.call("shutdown", nil, &null)
	c.notify("exit", nil)
	// Still serving: a request after exit is answered.
	var syms json.RawMessage
	c.call("workspace/symbol", map[string]string{"query": "x"}, &syms)
	c.stdin.Close()
	if code := c.exitCode(); code != 0 {
		t.Errorf("exit code %d, want 0 (it was shut down)", code)
	}
}
