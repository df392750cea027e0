package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine is the longest line the connection passes on: the ACP library
// reads lines of at most 10 MiB and ends the connection, silently, at a
// longer one.
const maxLine = 10<<20 - 1<<10

// tooLong is the method of the request that stands for a request too long
// to read: the library answers it "method not found", naming it.
const tooLong = "message_too_long: agent reads lines of at most 10 MiB"

// lineGuard passes the client's lines on unchanged, but one longer than
// maxLine (an image of many megabytes in a prompt, a huge file in an
// fs/read_text_file answer) is replaced by a line that fails only its own
// exchange: a request by a request of the same id the library refuses, a
// response by an error response of the same id; a notification is
// dropped. Each is reported on log.
type lineGuard struct {
	r       *bufio.Reader
	log     io.Writer
	pending []byte
	err     error
}

func newLineGuard(r io.Reader, log io.Writer) *lineGuard {
	if log == nil {
		log = io.Discard
	}
	return &lineGuard{r: bufio.NewReaderSize(r, 64<<10), log: log}
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.pending, g.err = g.line()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// line reads the next line, newline included, or its replacement.
func (g *lineGuard) line() ([]byte, error) {
	var line []byte
	size := 0
	for {
		chunk, err := g.r.ReadSlice('\n')
		size += len(chunk)
		if size <= maxLine {
			line = append(line, chunk...)
		} else if len(line) < 64<<10 {
			line = append(line, chunk[:min(len(chunk), 64<<10-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size > maxLine {
			return g.replace(line, size), err
		}
		return line, err
	}
}

// replace is the line that stands for an overlong one whose first bytes
// are head.
func (g *lineGuard) replace(head []byte, size int) []byte {
	id, method := idAndMethod(head)
	what := "a notification"
	var out []byte
	switch {
	case id != nil && method != "":
		what = "request " + method
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": tooLong})
	case id != nil:
		what = "a response"
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32600, "message": fmt.Sprintf("the client's answer is %d bytes, more than the 10 MiB agent reads", size)}})
	}
	fmt.Fprintf(g.log, "agent: the client sent %s of %d bytes, more than the 10 MiB a line may hold; it fails, the connection goes on\n", what, size)
	if out == nil {
		return nil
	}
	return append(out, '\n')
}

// idAndMethod reads a JSON-RPC message's id and method from its first
// bytes, as far as they come before its params, result or error.
func idAndMethod(head []byte) (json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	var id json.RawMessage
	var method string
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		switch key {
		case "id":
			if dec.Decode(&id) != nil {
				return nil, ""
			}
		case "method":
			if dec.Decode(&method) != nil {
				return id, ""
			}
		case "jsonrpc":
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return id, method
			}
		default:
			return id, method
		}
	}
	return id, method
}

// gatedReader reads r once ready is closed.
type gatedReader struct {
	ready <-chan struct{}
	r     io.Reader
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}
