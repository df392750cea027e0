package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Options changes how a Handler serves its script.
type Options struct {
	// RepeatLast serves the last reply again for every request beyond the
	// script, forever (for benchmarks), instead of answering 500.
	RepeatLast bool
	// RejectStreamOptions answers every request that carries
	// stream_options with HTTP 400 naming the option, as some servers do,
	// without consuming a reply of the script.
	RejectStreamOptions bool
	// DiscardRequests keeps no record of requests (for long benchmarks).
	DiscardRequests bool
	// Respond, when not nil, answers every request instead of the script:
	// a model whose behaviour depends on what it is sent (for benchmarks of
	// long sessions). It is called with the handler's lock held, one
	// request at a time.
	Respond func(ChatRequest) Reply
	// MeasureUsage replaces each reply's prompt_tokens with the request's
	// size (MeasurePrompt) and its cached_tokens with the part a provider's
	// prefix cache would serve (MeasureCached).
	MeasureUsage bool
	// Models are the ids GET /v1/models lists; nil lists one default
	// model. Listing requests are not recorded.
	Models []string
	// NoEmbeddings answers POST /v1/embeddings with HTTP 404, as a server
	// without the endpoint does (Anthropic's, most chat-only servers).
	NoEmbeddings bool
	// OnEmbeddings, when not nil, is called with the inputs of each
	// embeddings request before it is answered, with the request's
	// context (a test can hold the answer back until then).
	OnEmbeddings func(ctx context.Context, inputs []string)
}

// Handler is the http.Handler behind a Server. Use it directly to serve a
// script on a listener of your own (see bench/scripted-server); it is safe
// for concurrent use.
type Handler struct {
	opts    Options
	replies []Reply

	*Log[Request]

	mu      sync.Mutex
	next    int
	prev    []byte // the previous request in provider order, for MeasureUsage
	largest int    // the most prompt tokens MeasureUsage counted in one request
}

// NewHandler returns a handler that serves replies in order.
func NewHandler(opts Options, replies ...Reply) *Handler {
	return &Handler{opts: opts, replies: replies, Log: NewLog[Request]()}
}

// LargestPrompt returns the most prompt tokens one request carried, as
// MeasurePrompt counts them; 0 unless Options.MeasureUsage is set. It works
// with DiscardRequests too.
func (h *Handler) LargestPrompt() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.largest
}

// ServeHTTP answers one request from the script.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if IsModelsRequest(r) {
		serveModels(w, h.opts.Models)
		return
	}
	if IsEmbeddingsRequest(r) {
		h.serveEmbeddings(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Reply: -1}
	rec.DecodeErr = json.Unmarshal(body, &rec.Chat)

	reply, status, msg := h.pick(r, &rec)
	rec.Status = status
	h.Record(rec, !h.opts.DiscardRequests)

	if status != http.StatusOK {
		writeError(w, status, msg, reply.RetryAfter)
		return
	}
	includeUsage := rec.Chat.StreamOptions != nil && rec.Chat.StreamOptions.IncludeUsage
	reply.stream(r.Context(), h.Done(), w, reply.events(rec.Chat.Model, includeUsage))
}

// pick chooses the answer to r: the reply, the status and an error message.
func (h *Handler) pick(r *http.Request, rec *Request) (Reply, int, string) {
	switch {
	case r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions":
		return Reply{}, http.StatusNotFound, "scripted: no such endpoint " + r.URL.Path
	case r.Method != http.MethodPost:
		return Reply{}, http.StatusMethodNotAllowed, "scripted: method " + r.Method + " not allowed"
	case h.opts.RejectStreamOptions && bytes.Contains(rec.Body, []byte(`"stream_options"`)):
		return Reply{}, http.StatusBadRequest, streamOptionsMessage
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	reply, status, msg := h.next1(rec)
	if h.opts.MeasureUsage && status == http.StatusOK {
		cur := ProviderOrder(rec.Chat)
		reply.Usage.PromptTokens = MeasurePrompt(rec.Body)
		h.largest = max(h.largest, reply.Usage.PromptTokens)
		reply.Usage.CachedTokens = MeasureCached(h.prev, cur)
		h.prev = cur
	}
	return reply, status, msg
}

// next1 serves the next reply of the script (or of Options.Respond).
func (h *Handler) next1(rec *Request) (Reply, int, string) {
	if h.opts.Respond != nil {
		rec.Reply = h.next
		h.next++
		return h.opts.Respond(rec.Chat), http.StatusOK, ""
	}
	i := h.next
	switch {
	case i < len(h.replies):
		h.next++
	case h.opts.RepeatLast && len(h.replies) > 0:
		i = len(h.replies) - 1
	default:
		h.next++
		return Reply{}, http.StatusInternalServerError,
			fmt.Sprintf("scripted: request %d is beyond the script of %d replies", i+1, len(h.replies))
	}
	rec.Reply = i
	reply := h.replies[i]
	if reply.Status != 0 && reply.Status != http.StatusOK {
		return reply, reply.Status, reply.ErrorMessage
	}
	return reply, http.StatusOK, ""
}

func writeError(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "scripted_error", "param": nil, "code": status,
	}})
	w.Write(body)
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

// URL returns the base URL to give a client, ending in "/v1" (for example
// "http://127.0.0.1:41234/v1").
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Close ends all streams, closes client connections and stops the server.
// It does not wait for a client to give up a stalled stream.
func (s *Server) Close() {
	s.Handler.Close()
	s.ts.CloseClientConnections()
	s.ts.Close()
}
