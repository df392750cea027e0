package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/providers"
)

// attempt is what the transport learns about one HTTP attempt, which
// go-openai does not expose: the status and headers of the answer, how many
// body bytes arrived and whether "data: [DONE]" was among them. It also
// owns the idle timer, which cancels the attempt's context with cause
// providers.ErrStreamIdle when no byte arrived for the idle timeout.
type attempt struct {
	idle  time.Duration
	timer *time.Timer

	mu         sync.Mutex
	sent       bool
	status     int
	header     http.Header
	bodyBytes  atomic.Int64
	sawDone    bool // touched only by the goroutine reading the body
	linePrefix []byte
}

type attemptKey struct{}

// startAttempt returns a context for one attempt that is cancelled with
// cause providers.ErrStreamIdle after idle without a byte, and a stop
// function that releases the timer.
func startAttempt(ctx context.Context, idle time.Duration) (context.Context, *attempt, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	a := &attempt{idle: idle}
	a.timer = time.AfterFunc(idle, func() { cancel(providers.ErrStreamIdle) })
	ctx = context.WithValue(ctx, attemptKey{}, a)
	return ctx, a, func() { a.timer.Stop(); cancel(nil) }
}

func (a *attempt) touch() { a.timer.Reset(a.idle) }

func (a *attempt) answered() (sent bool, status int, header http.Header) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent, a.status, a.header
}

// transport records each attempt's answer and watches its body.
type transport struct {
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a == nil {
		return t.base.RoundTrip(req)
	}
	a.mu.Lock()
	a.sent = true
	a.mu.Unlock()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	a.touch()
	a.mu.Lock()
	a.status, a.header = resp.StatusCode, resp.Header
	a.mu.Unlock()
	resp.Body = &watchedBody{ReadCloser: resp.Body, a: a}
	return resp, nil
}

// watchedBody resets the idle timer on every byte read (SSE comment lines
// included), notices a "data: [DONE]" line, and drops SSE comment lines
// before go-openai sees them: go-openai keeps every non-data line in an
// error buffer for the whole stream, so keep-alive comments would grow it
// without bound and hide an error event ({"error":...}) sent after them.
type watchedBody struct {
	io.ReadCloser
	a *attempt

	midLine   bool // a line has started and is not a comment
	inComment bool // the current line is a comment being dropped
}

var doneLine = []byte("data:[DONE]")

func (b *watchedBody) Read(p []byte) (int, error) {
	for {
		n, err := b.ReadCloser.Read(p)
		if n > 0 {
			b.a.touch()
			b.a.bodyBytes.Add(int64(n))
			n = b.filter(p[:n])
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// filter drops comment lines from p in place and returns the length kept.
func (b *watchedBody) filter(p []byte) int {
	a, kept := b.a, 0
	for _, c := range p {
		if c == '\n' || c == '\r' {
			if bytes.Equal(a.linePrefix, doneLine) {
				a.sawDone = true
			}
			a.linePrefix = a.linePrefix[:0]
			wasComment := b.inComment
			b.midLine, b.inComment = false, false
			if wasComment {
				continue
			}
		} else if b.inComment {
			continue
		} else if !b.midLine {
			if c == ':' {
				b.inComment = true
				continue
			}
			b.midLine = true
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && len(a.linePrefix) <= len(doneLine) {
			a.linePrefix = append(a.linePrefix, c) // "data: [DONE]" and "data:[DONE]" are the same line
		}
		p[kept] = c
		kept++
	}
	return kept
}
