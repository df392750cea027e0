package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Attempt is what the shared transport learns about one HTTP attempt, which
// vendor SDKs do not expose: whether the request went out, the status and
// headers of the answer and how many body bytes arrived. It owns the idle
// timer, which cancels the attempt's context with cause ErrStreamIdle when
// no byte arrived for the idle timeout.
type Attempt struct {
	idle  time.Duration
	timer *time.Timer

	mu        sync.Mutex
	sent      bool
	status    int
	header    http.Header
	bodyBytes atomic.Int64
}

type attemptKey struct{}

// StartAttempt returns a context for one attempt that is cancelled with
// cause ErrStreamIdle after idle without a byte (the wait for the headers
// included), the Attempt the transport fills in, and a stop function that
// releases the timer and the context. Send the request with that context
// through a client from NewHTTPClient.
func StartAttempt(ctx context.Context, idle time.Duration) (context.Context, *Attempt, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	a := &Attempt{idle: idle}
	a.timer = time.AfterFunc(idle, func() { cancel(ErrStreamIdle) })
	ctx = context.WithValue(ctx, attemptKey{}, a)
	return ctx, a, func() { a.timer.Stop(); cancel(nil) }
}

// writtenKey holds the functions WhenRequestWritten added to a context.
type writtenKey struct{}

// WhenRequestWritten returns ctx with f added to what runs when a request
// sent with it (or a context derived from it) through a client from
// NewHTTPClient has been written to the connection, its body included, or
// its writing failed (net/http/httptrace's WroteRequest): once per request
// sent, each retry one, on the transport's goroutine, so f must return at
// once. It tells a caller that
// the server has the request, for work it should begin only then: work
// that would take the CPU from the request's own writing (the transport's
// goroutines wait for a free processor behind it, 7 to 11 ms of a
// five-step -p run's first request beside the prompt's checkpoint;
// BENCHMARKS.md, issue 43).
func WhenRequestWritten(ctx context.Context, f func()) context.Context {
	fs, _ := ctx.Value(writtenKey{}).([]func())
	return context.WithValue(ctx, writtenKey{}, append(slices.Clip(fs), f))
}

// withWrittenTrace returns req with a client trace that runs the functions
// WhenRequestWritten added to its context once it is written, or req as it
// is when there are none.
func withWrittenTrace(req *http.Request) *http.Request {
	fs, _ := req.Context().Value(writtenKey{}).([]func())
	if len(fs) == 0 {
		return req
	}
	return req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) {
			for _, f := range fs {
				f()
			}
		},
	}))
}

// AttemptFrom returns the Attempt of ctx, or nil.
func AttemptFrom(ctx context.Context) *Attempt {
	a, _ := ctx.Value(attemptKey{}).(*Attempt)
	return a
}

// Touch restarts the idle timer.
func (a *Attempt) Touch() { a.timer.Reset(a.idle) }

// Answered returns whether the request was sent, and the answer's status
// and headers (0 and nil before an answer).
func (a *Attempt) Answered() (sent bool, status int, header http.Header) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent, a.status, a.header
}

// BodyBytes is the number of body bytes read so far.
func (a *Attempt) BodyBytes() int64 { return a.bodyBytes.Load() }

// NewHTTPClient returns a copy of hc (nil: a new client over
// http.DefaultTransport) whose transport records each attempt started with
// StartAttempt and restarts its idle timer on every byte of the answer.
// Requests without an Attempt pass through unchanged, but for the functions
// WhenRequestWritten added to their context.
func NewHTTPClient(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &transport{base: base}
	return c
}

type transport struct {
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = withWrittenTrace(req)
	a := AttemptFrom(req.Context())
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
	a.Touch()
	a.mu.Lock()
	a.status, a.header = resp.StatusCode, resp.Header
	a.mu.Unlock()
	resp.Body = &watchedBody{ReadCloser: resp.Body, a: a, ctx: req.Context()}
	return resp, nil
}

// ReadPace is the shortest time between two reads of a response body whose
// bytes come faster than that: a read that returned a small part of a
// buffer (under 4 KiB) and waited less than ReadPace for it, the last of
// paceAfter such reads in a row, is followed by a pause until ReadPace after
// that read began, so that
// a server streaming a delta every millisecond is read in one system call
// and one goroutine wake per ReadPace, each finding about ten deltas,
// rather than one per delta. Deltas reach the caller at most ReadPace
// later, well under the interface's 50 ms frames; a body read in full
// buffers (a large JSON answer) and a stream slower than ReadPace (a
// model's tokens 20 ms or more apart) are read without pauses.
const ReadPace = 10 * time.Millisecond

// paceAfter is how many small reads in a row must find their bytes already
// waiting before reads are paced: a short answer (a few deltas and the end
// of the stream) is read as it comes, so pacing never delays its end.
const paceAfter = 8

// paceMaxRead bounds the reads that pace: a read of fewer bytes, that did
// not fill the caller's buffer, is a small piece of a stream. Larger reads
// (a large answer arriving in full) go on at once.
const paceMaxRead = 4096

// readPace is ReadPace; benchmarks set it to 0 to read without pauses.
var readPace = ReadPace

// watchedBody restarts the idle timer and counts on every byte read, and
// paces the reads of a fast stream (see ReadPace).
type watchedBody struct {
	io.ReadCloser
	a   *Attempt
	ctx context.Context // the request's: cancelling it ends a pause

	next  time.Time   // no read before this (zero: read at once)
	pause *time.Timer // reused for the pauses
	fast  int         // small reads in a row that found their bytes waiting
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if wait := time.Until(b.next); wait > 0 {
		if b.pause == nil {
			b.pause = time.NewTimer(wait)
		} else {
			b.pause.Reset(wait)
		}
		select {
		case <-b.pause.C:
		case <-b.ctx.Done():
			b.pause.Stop()
		}
	}
	called := time.Now()
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.a.Touch()
		b.a.bodyBytes.Add(int64(n))
	}
	b.next = time.Time{}
	if n > 0 && n < len(p) && n < paceMaxRead && err == nil && time.Since(called) < readPace {
		if b.fast++; b.fast >= paceAfter {
			b.next = called.Add(readPace)
		}
	} else {
		b.fast = 0
	}
	return n, err
}

// Failure classifies the error err of an attempt that obtained no stream:
// the caller's cancellation (wrapped ctx.Err()), idleness before the
// headers (wrapping ErrStreamIdle), an HTTP error answer (*APIError with
// message(status) as its Message, retryable for RetryableStatus, and the
// server's Retry-After), a request that never went out (a plain error), or
// a connection failure (*APIError with StatusCode 0, retryable). actx is
// the attempt's context from StartAttempt; redact removes secrets from
// texts that came from elsewhere.
func (a *Attempt) Failure(ctx, actx context.Context, err error, message func(status int) string, redact func(string) string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("sending the model request: %w", ctx.Err())
	}
	if errors.Is(context.Cause(actx), ErrStreamIdle) {
		return fmt.Errorf("no answer from the model server for %s: %w", a.idle, ErrStreamIdle)
	}
	sent, status, header := a.Answered()
	switch {
	case status != 0:
		return &APIError{
			StatusCode: status,
			Message:    redact(message(status)),
			Retryable:  RetryableStatus(status),
			RetryAfter: RetryAfter(header, time.Now()),
		}
	case !sent:
		return fmt.Errorf("building the model request: %s", redact(err.Error()))
	default:
		return &APIError{Message: redact(err.Error()), Retryable: true}
	}
}
