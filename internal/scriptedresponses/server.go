package scriptedresponses

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

// Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	// Body is the raw body; Params is it decoded (DecodeErr says why not).
	Body      []byte
	Params    Params
	DecodeErr error
	// Reply is the index of the reply served, -1 for none.
	Reply int
}

// Params is the part of a request body tests look at.
type Params struct {
	Model             string          `json:"model"`
	Instructions      string          `json:"instructions"`
	Input             []InputItem     `json:"input"`
	Tools             []Tool          `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Store             *bool           `json:"store"`
	Stream            bool            `json:"stream"`
	Include           []string        `json:"include"`
	PromptCacheKey    string          `json:"prompt_cache_key"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	MaxOutputTokens   int             `json:"max_output_tokens"`
	Reasoning         *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
}

// InputItem is one input item; only the fields of its type are set.
type InputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent string          `json:"encrypted_content"`
	Summary          []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"summary"`
}

// Tool is one entry of the request's tools.
type Tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Strict      *bool           `json:"strict"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Handler serves a script; it is safe for concurrent use.
type Handler struct {
	*scripted.Log[Request]

	mu      sync.Mutex
	replies []Reply
	next    int
}

// NewHandler returns a handler serving replies in order.
func NewHandler(replies ...Reply) *Handler {
	return &Handler{Log: scripted.NewLog[Request](), replies: replies}
}

// ServeHTTP answers one request from the script.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/models") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-5-mini","object":"model","created":1686935002,"owned_by":"openai"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Reply: -1}
	rec.DecodeErr = json.Unmarshal(body, &rec.Params)
	reply, status, msg := h.pick(r, &rec)
	h.Record(rec, true)
	if status != http.StatusOK {
		writeError(w, status, msg, reply.RetryAfter)
		return
	}
	h.stream(w, r, reply, rec.Params.Model)
}

func (h *Handler) pick(r *http.Request, rec *Request) (Reply, int, string) {
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/responses" && r.URL.Path != "/responses") {
		return Reply{}, http.StatusNotFound, "scriptedresponses: no such endpoint " + r.Method + " " + r.URL.Path
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.next
	h.next++
	if i >= len(h.replies) {
		return Reply{}, http.StatusInternalServerError, fmt.Sprintf("scriptedresponses: request %d is beyond the script of %d replies", i+1, len(h.replies))
	}
	rec.Reply = i
	reply := h.replies[i]
	if reply.Status != 0 && reply.Status != http.StatusOK {
		return reply, reply.Status, reply.ErrorMessage
	}
	return reply, http.StatusOK, ""
}

// stream writes the reply's events, flushing each.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, reply Reply, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if reply.SSE != "" {
		io.WriteString(w, reply.SSE)
		return
	}
	for n, ev := range reply.events(model) {
		if reply.CutAfter > 0 && n == reply.CutAfter {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close() // abruptly: no end of the chunked body
				}
			}
			return
		}
		if r.Context().Err() != nil {
			return
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// writeError answers the documented error body:
// {"error":{"message":...,"type":...,"param":null,"code":...}}.
func writeError(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "invalid_request_error"
	if status == http.StatusTooManyRequests {
		typ = "rate_limit_exceeded"
	} else if status >= 500 {
		typ = "server_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	w.Write(body)
}

// Server is a Handler listening on a random port of 127.0.0.1.
type Server struct {
	*Handler
	ts *httptest.Server
}

// New starts a server serving replies in order, closed when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := Start(replies...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server without a test; the caller must Close it.
func Start(replies ...Reply) *Server {
	h := NewHandler(replies...)
	return &Server{Handler: h, ts: httptest.NewServer(h)}
}

// URL is the base URL to give a client, ending in "/v1".
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Close ends the streams and stops the server.
func (s *Server) Close() {
	s.Handler.Close()
	s.ts.CloseClientConnections()
	s.ts.Close()
}
