package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport runs a stdio server: it starts cmd and speaks
// newline-delimited JSON-RPC over its standard input and output through
// the SDK's IOTransport, as the SDK's CommandTransport does (closing
// closes the server's stdin, waits for it to exit, then sends SIGTERM,
// then kills it, terminate apart). The one difference is what comes
// before the server's first message: lines on its standard output that
// are not JSON-RPC (a banner, "Server running on stdio") are skipped, and
// warn is told of the first once (see bannerReader). From the first
// JSON-RPC message on, the output goes to the SDK as it is, and a line
// that is not JSON ends the connection, as before.
type stdioTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration
	warn      func(line string)
	// started, when not nil, is called once the process started.
	started func()
}

var _ sdk.Transport = (*stdioTransport)(nil)

// Connect starts the server's process.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	if t.started != nil {
		t.started()
	}
	r := &bannerReader{r: bufio.NewReaderSize(stdout, 64*1024), warn: t.warn}
	w := &processInput{stdin: stdin, cmd: t.cmd, terminate: t.terminate}
	// The connection closes by closing stdin (processInput), not stdout.
	return (&sdk.IOTransport{Reader: io.NopCloser(r), Writer: w}).Connect(ctx)
}

// bannerReader passes a stdio server's output on from its first JSON-RPC
// message: lines before it that are not a JSON object with a "jsonrpc"
// member are dropped, and warn (when not nil) is given the first of them,
// once. Blank lines are dropped silently. A line longer than its buffer
// (64 KB) that opens like JSON is taken for the first message.
type bannerReader struct {
	r       *bufio.Reader
	warn    func(line string)
	warned  bool
	started bool
	pending []byte // the first message's line, not yet read
}

func (b *bannerReader) Read(p []byte) (int, error) {
	if b.started {
		if len(b.pending) > 0 {
			n := copy(p, b.pending)
			b.pending = b.pending[n:]
			return n, nil
		}
		return b.r.Read(p)
	}
	for {
		line, err := b.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: a message if it opens like
			// one (a large first message), else skipped to its end.
			if t := bytes.TrimSpace(line); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
				return b.start(line, p)
			}
			b.skip(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = b.r.ReadSlice('\n')
			}
			if err != nil {
				return 0, err
			}
			continue
		}
		if isJSONRPC(line) {
			return b.start(line, p)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			b.skip(line)
		}
		if err != nil {
			return 0, err
		}
	}
}

// start passes the output on from line, the first message's (or its
// beginning), on.
func (b *bannerReader) start(line, p []byte) (int, error) {
	b.started = true
	b.pending = bytes.Clone(line) // ReadSlice's buffer is reused
	return b.Read(p)
}

// skip warns of line, the first time a line is skipped.
func (b *bannerReader) skip(line []byte) {
	if b.warned || b.warn == nil {
		return
	}
	b.warned = true
	s := strings.TrimSpace(string(line))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	b.warn(s)
}

// isJSONRPC reports whether line is a JSON object with a "jsonrpc"
// member (or a batch of them): a JSON-RPC message.
func isJSONRPC(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') || !json.Valid(line) {
		return false
	}
	var one struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		line = batch[0]
	}
	return json.Unmarshal(line, &one) == nil && one.JSONRPC != nil
}

// processInput is the server's stdin; closing it ends the server as the
// MCP specification asks of a stdio client: stdin closed, then a wait for
// the process, then SIGTERM, then SIGKILL, each after terminate.
type processInput struct {
	stdin     io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (w *processInput) Write(p []byte) (int, error) { return w.stdin.Write(p) }

func (w *processInput) Close() error {
	if err := w.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(w.terminate)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := w.cmd.Process.Signal(terminateSignal); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := w.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}
