package scriptedanthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// Options changes how a Handler serves its script.
type Options struct {
	// RepeatLast serves the last reply again for every request beyond the
	// script, forever (for benchmarks), instead of answering 500.
	RepeatLast bool
	// SimulateCache computes each reply's input, cache-read and
	// cache-write tokens from the request's breakpoints (see cache), in
	// place of the reply's Usage.
	SimulateCache bool
	// Models are the ids GET /v1/models lists; nil lists one default
	// model. Listing requests are not recorded.
	Models []string
}

// Handler is the http.Handler behind a Server; it is safe for concurrent
// use.
type Handler struct {
	opts    Options
	replies []Reply
	cache   cache

	*scripted.Log[Request]

	mu   sync.Mutex
	next int
}

// NewHandler returns a handler that serves replies in order.
func NewHandler(opts Options, replies ...Reply) *Handler {
	return &Handler{opts: opts, replies: replies, Log: scripted.NewLog[Request]()}
}

// ServeHTTP answers one request from the script.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if scripted.IsModelsRequest(r) {
		serveModels(w, h.opts.Models)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Reply: -1}
	rec.DecodeErr = json.Unmarshal(body, &rec.Params)

	reply, status, typ, msg := h.pick(r, &rec)
	rec.Status = status
	u := reply.Usage
	if status == http.StatusOK && h.opts.SimulateCache {
		u.Input, u.CacheRead, u.CacheWrite = h.cache.usage(body)
	}
	rec.Usage = u
	h.Record(rec, true)

	if status != http.StatusOK {
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_scripted")
		w.WriteHeader(status)
		io.WriteString(w, errorBody(typ, msg))
		return
	}
	reply.stream(r.Context(), h.Done(), w, reply.events(rec.Params.Model, u, fmt.Sprintf("msg_scripted_%d", rec.Reply)))
}

// pick chooses the answer to r: the reply, the status, an error type and
// message.
func (h *Handler) pick(r *http.Request, rec *Request) (Reply, int, string, string) {
	switch {
	case r.URL.Path != "/v1/messages":
		return Reply{}, http.StatusNotFound, "not_found_error", "scriptedanthropic: no such endpoint " + r.URL.Path
	case r.Method != http.MethodPost:
		return Reply{}, http.StatusMethodNotAllowed, "invalid_request_error", "scriptedanthropic: method " + r.Method + " not allowed"
	case rec.DecodeErr != nil:
		return Reply{}, http.StatusBadRequest, "invalid_request_error", "scriptedanthropic: " + rec.DecodeErr.Error()
	case len(rec.Params.Tools) == 0 && hasToolBlocks(rec.Params.Messages):
		// As the Messages API answers.
		return Reply{}, http.StatusBadRequest, "invalid_request_error",
			"Requests which include `tool_use` or `tool_result` blocks must define tools."
	case deferredInvalid(rec.Params) != "":
		return Reply{}, http.StatusBadRequest, "invalid_request_error", deferredInvalid(rec.Params)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.next
	switch {
	case i < len(h.replies):
		h.next++
	case h.opts.RepeatLast && len(h.replies) > 0:
		i = len(h.replies) - 1
	default:
		h.next++
		return Reply{}, http.StatusInternalServerError, "api_error",
			fmt.Sprintf("scriptedanthropic: request %d is beyond the script of %d replies", i+1, len(h.replies))
	}
	rec.Reply = i
	reply := h.replies[i]
	if reply.Status != 0 && reply.Status != http.StatusOK {
		return reply, reply.Status, reply.ErrorType, reply.ErrorMessage
	}
	return reply, http.StatusOK, "", ""
}

// Server is a Handler listening on a random port of 127.0.0.1.
type Server struct {
	*Handler
	ts *httptest.Server
}

// New starts a server that serves replies in order and closes it when the
// test ends.
func New(t testing.TB, replies ...Reply) *Server {
	return NewWithOptions(t, Options{}, replies...)
}

// NewWithOptions is New with options.
func NewWithOptions(t testing.TB, opts Options, replies ...Reply) *Server {
	t.Helper()
	s := Start(opts, replies...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server without a test; the caller must Close it.
func Start(opts Options, replies ...Reply) *Server {
	h := NewHandler(opts, replies...)
	return &Server{Handler: h, ts: httptest.NewServer(h)}
}

// URL returns the base URL to give a client, without "/v1" (for example
// "http://127.0.0.1:41234"), as ANTHROPIC_BASE_URL is.
func (s *Server) URL() string { return s.ts.URL }

// Close ends all streams, closes client connections and stops the server.
func (s *Server) Close() {
	s.Handler.Close()
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// hasToolBlocks reports whether any message holds a tool_use or tool_result
// block.
func hasToolBlocks(msgs []Message) bool {
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == "tool_use" || b.Type == "tool_result" {
				return true
			}
		}
	}
	return false
}
