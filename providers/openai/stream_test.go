package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/openai"
)

// recorder collects stream events.
type recorder struct{ events []providers.StreamEvent }

func (r *recorder) on(e providers.StreamEvent) { r.events = append(r.events, e) }

func (r *recorder) text() (reasoning, text string) {
	for _, e := range r.events {
		switch e := e.(type) {
		case providers.ReasoningDelta:
			reasoning += e.Text
		case providers.TextDelta:
			text += e.Text
		}
	}
	return reasoning, text
}

func (r *recorder) of(kind string) []providers.StreamEvent {
	var out []providers.StreamEvent
	for _, e := range r.events {
		switch e.(type) {
		case providers.ToolCallBegin:
			if kind == "begin" {
				out = append(out, e)
			}
		case providers.Retry:
			if kind == "retry" {
				out = append(out, e)
			}
		}
	}
	return out
}

func newClient(srv *scripted.Server, key string) *openai.Client {
	return openai.New(openai.Config{
		BaseURL: srv.URL(), APIKey: key, IdleTimeout: 2 * time.Second,
		BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond,
	})
}

var hello = providers.Request{Model: "m", Messages: []providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "hi"}}}}}

func TestStreamTextAndReasoning(t *testing.T) {
	srv := scripted.New(t, scripted.Text("Hello, wörld! This is streamed.").WithReasoning("Let me think.").WithUsage(42, 7))
	var rec recorder
	resp, err := newClient(srv, "").Stream(context.Background(), hello, rec.on)
	if err != nil {
		t.Fatal(err)
	}
	reasoning, text := rec.text()
	if reasoning != "Let me think." || text != "Hello, wörld! This is streamed." {
		t.Errorf("deltas: reasoning %q, text %q", reasoning, text)
	}
	if len(rec.events) < 10 {
		t.Errorf("got %d events, want many small deltas", len(rec.events))
	}
	want := []providers.Part{providers.Reasoning{Text: "Let me think."}, providers.Text{Text: "Hello, wörld! This is streamed."}}
	if len(resp.Message.Parts) != 2 || resp.Message.Parts[0] != want[0] || resp.Message.Parts[1] != want[1] {
		t.Errorf("parts = %#v", resp.Message.Parts)
	}
	if resp.FinishReason != providers.FinishStop || resp.Usage != (providers.Usage{InputTokens: 42, OutputTokens: 7}) {
		t.Errorf("finish %q usage %+v", resp.FinishReason, resp.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if !r.Chat.Stream || r.Chat.StreamOptions == nil || !r.Chat.StreamOptions.IncludeUsage || r.Chat.Model != "m" {
		t.Errorf("request = %s", r.Body)
	}
	if h := r.Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q sent with an empty key", h)
	}
}

func TestStreamToolCalls(t *testing.T) {
	calls := []scripted.Call{
		{ID: "call_x", Name: "read_file", Arguments: `{"path":"main.go","limit":20}`},
		{ID: "glob:0", Name: "glob", Arguments: `{"pattern":"**/*.go"}`},
		{Name: "list_files", Arguments: ``},
	}
	srv := scripted.New(t, scripted.ToolCalls(calls...).WithPieceSize(2).WithComments(3))
	var rec recorder
	resp, err := newClient(srv, "").Stream(context.Background(), hello, rec.on)
	if err != nil {
		t.Fatal(err)
	}
	wantBegin := []providers.StreamEvent{
		providers.ToolCallBegin{Index: 0, ID: "call_x", Name: "read_file"},
		providers.ToolCallBegin{Index: 1, ID: "glob:0", Name: "glob"},
		providers.ToolCallBegin{Index: 2, ID: "call_2", Name: "list_files"},
	}
	if got := rec.of("begin"); !equalEvents(got, wantBegin) {
		t.Errorf("begin events = %#v", got)
	}
	got := resp.Message.ToolCalls()
	want := []providers.ToolCall{
		{ID: "call_x", Name: "read_file", Arguments: calls[0].Arguments},
		{ID: "glob:0", Name: "glob", Arguments: calls[1].Arguments},
		{ID: "call_2", Name: "list_files", Arguments: "{}"},
	}
	if len(got) != len(want) {
		t.Fatalf("calls = %#v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d = %#v, want %#v", i, got[i], want[i])
		}
	}
	if resp.FinishReason != providers.FinishToolCalls || resp.Message.Text() != "" {
		t.Errorf("finish %q text %q", resp.FinishReason, resp.Message.Text())
	}
}

func equalEvents(a, b []providers.StreamEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStreamQuirks(t *testing.T) {
	tests := []struct {
		name  string
		reply scripted.Reply
	}{
		{"hundreds of comments", scripted.Text("slow thinker").WithComments(400)},
		{"no finish reason but done", scripted.Text("hi there").WithoutFinish()},
		{"finish reason but no done", scripted.Text("hi there").WithoutDone()},
		{"no usage", scripted.Text("hi there").WithUsage(0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.reply)
			resp, err := newClient(srv, "").Stream(context.Background(), hello, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Text() != tt.reply.Text {
				t.Errorf("text = %q", resp.Message.Text())
			}
		})
	}
}

func TestRequestMapping(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"))
	req := providers.Request{
		Model:  "m",
		System: "You are terse.",
		Messages: []providers.Message{
			{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "list go files"}}},
			{Role: providers.RoleAssistant, Parts: []providers.Part{
				providers.Reasoning{Text: "secret thoughts"},
				providers.ToolCall{ID: "glob:0", Name: "glob", Arguments: `{"pattern":"*.go"}`},
			}},
			{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "glob:0", Name: "glob", Content: "main.go"}}},
			{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "main.go"}}},
		},
		Tools: []providers.ToolDefinition{
			{Name: "glob", Description: "Find files.", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)},
			{Name: "bash", Description: "Run a command."},
		},
	}
	if _, err := newClient(srv, "sk-test").Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if strings.Contains(string(r.Body), "secret thoughts") || strings.Contains(string(r.Body), "reasoning") {
		t.Errorf("reasoning was sent back: %s", r.Body)
	}
	m := r.Chat.Messages
	if len(m) != 5 {
		t.Fatalf("messages = %s", r.Body)
	}
	if m[0].Role != "system" || m[0].Text() != "You are terse." {
		t.Errorf("system message = %+v", m[0])
	}
	if m[2].Role != "assistant" || m[2].HasContent() || len(m[2].ToolCalls) != 1 ||
		m[2].ToolCalls[0].ID != "glob:0" || m[2].ToolCalls[0].Type != "function" || m[2].ToolCalls[0].Function.Arguments != `{"pattern":"*.go"}` {
		t.Errorf("assistant tool call message = %+v", m[2])
	}
	if m[3].Role != "tool" || m[3].ToolCallID != "glob:0" || m[3].Text() != "main.go" {
		t.Errorf("tool message = %+v", m[3])
	}
	if len(r.Chat.Tools) != 2 || string(r.Chat.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tools = %+v", r.Chat.Tools)
	}
	if strings.Contains(string(r.Body), "max_completion_tokens") || strings.Contains(string(r.Body), "max_tokens") {
		t.Errorf("an output limit was sent though none is set: %s", r.Body)
	}
}

func TestMaxOutputTokensSent(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	c := openai.New(openai.Config{BaseURL: srv.URL(), MaxRetries: -1, MaxOutputTokens: 500})
	c.Stream(context.Background(), providers.Request{Model: "m"}, nil)
	c.Stream(context.Background(), providers.Request{Model: "m", MaxOutputTokens: 70}, nil)
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Body), `"max_completion_tokens":500`) || !strings.Contains(string(reqs[1].Body), `"max_completion_tokens":70`) {
		t.Errorf("bodies: %s\n%s", reqs[0].Body, reqs[1].Body)
	}
}

// ToolChoiceNone declares the tools and forbids calls: tool_choice "none".
func TestToolChoiceNoneSent(t *testing.T) {
	srv := scripted.New(t, scripted.Text("ok"), scripted.Text("ok"))
	c := openai.New(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	tools := []providers.ToolDefinition{{Name: "grep", Description: "Search."}}
	c.Stream(context.Background(), providers.Request{Model: "m", Tools: tools, ToolChoice: providers.ToolChoiceNone}, nil)
	c.Stream(context.Background(), providers.Request{Model: "m", Tools: tools}, nil)
	reqs := srv.Requests()
	if reqs[0].Chat.MayCallTools() || len(reqs[0].Chat.Tools) != 1 || !reqs[1].Chat.MayCallTools() {
		t.Errorf("bodies: %s\n%s", reqs[0].Body, reqs[1].Body)
	}
}

func TestRetries(t *testing.T) {
	srv := scripted.New(t,
		scripted.Error(429, "slow down").WithRetryAfter("0"),
		scripted.Error(503, "overloaded"),
		scripted.Text("finally"),
	)
	var rec recorder
	resp, err := newClient(srv, "").Stream(context.Background(), hello, rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "finally" || len(srv.Requests()) != 3 {
		t.Errorf("text %q after %d requests", resp.Message.Text(), len(srv.Requests()))
	}
	retries := rec.of("retry")
	if len(retries) != 2 {
		t.Fatalf("retry events = %#v", retries)
	}
	r := retries[1].(providers.Retry)
	var apiErr *providers.APIError
	if r.Attempt != 2 || r.Max != openai.DefaultMaxRetries || !errors.As(r.Err, &apiErr) || apiErr.StatusCode != 503 {
		t.Errorf("second retry = %+v", r)
	}
}

func TestErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name     string
		replies  []scripted.Reply
		status   int
		requests int
	}{
		{"retries exhausted", []scripted.Reply{scripted.Error(500, "boom"), scripted.Error(502, "boom"), scripted.Error(500, "boom")}, 500, 3},
		{"unauthorized", []scripted.Reply{scripted.Error(401, "Incorrect API key provided: sk-secret-123")}, 401, 1},
		{"forbidden", []scripted.Reply{scripted.Error(403, "no")}, 403, 1},
		{"bad request", []scripted.Reply{scripted.Error(400, "bad tool schema")}, 400, 1},
		{"retry-after beyond max delay", []scripted.Reply{scripted.Error(429, "quota").WithRetryAfter("3600")}, 429, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, tt.replies...)
			c := openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-secret-123", MaxRetries: 2, BaseDelay: time.Millisecond})
			_, err := c.Stream(context.Background(), hello, nil)
			var apiErr *providers.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("err = %v", err)
			}
			if strings.Contains(err.Error(), "sk-secret-123") {
				t.Errorf("error shows the API key: %v", err)
			}
			if want := tt.replies[0].ErrorMessage; tt.status != 401 && !strings.Contains(apiErr.Message, want) {
				t.Errorf("message %q, want %q", apiErr.Message, want)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.status == 429 && apiErr.RetryAfter != time.Hour {
				t.Errorf("RetryAfter = %v", apiErr.RetryAfter)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := openai.New(openai.Config{BaseURL: "http://" + addr + "/v1", MaxRetries: 2, BaseDelay: time.Millisecond})
	var rec recorder
	_, err = c.Stream(context.Background(), hello, rec.on)
	var apiErr *providers.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 0 || !apiErr.Retryable {
		t.Fatalf("err = %#v", err)
	}
	if n := len(rec.of("retry")); n != 2 {
		t.Errorf("%d retry events", n)
	}
}

func TestStreamFaults(t *testing.T) {
	text := "partial answer that will not finish"
	upstream := `{"error":{"message":"upstream died","code":502}}`
	overloaded := `{"error":{"message":"the server is overloaded","type":"server_error","code":"overloaded"}}`
	tests := []struct {
		name      string
		reply     scripted.Reply
		want      error // nil: an error with the server's message, not retried
		wantText  string
		retried   bool
		discarded bool
	}{
		{"cut", scripted.Text(text).CutAfter(4), providers.ErrStreamCut, text[:12], true, true},
		{"ends without finish or done", scripted.Text(text).WithoutFinish().WithoutDone(), providers.ErrStreamCut, text, true, true},
		{"cut in tool call", scripted.ToolCalls(scripted.Call{ID: "a", Name: "glob", Arguments: `{"pattern":"*.go"}`}).CutAfter(3), providers.ErrStreamCut, "", true, false},
		{"error event mid-stream", scripted.Reply{Raw: []string{hiChunk, upstream}}, nil, "hi", false, false},
		{"error event after comments", scripted.Reply{Raw: []string{hiChunk, upstream}, Comments: 3}, nil, "hi", false, false},
		{"overloaded event", scripted.Reply{Raw: []string{hiChunk, overloaded}}, nil, "hi", true, true},
		{"rate limit event", scripted.Reply{Raw: []string{hiChunk, `{"error":{"message":"slow down","code":429}}`}}, nil, "hi", true, true},
		{"stall", scripted.Text(text).StallAfter(2), providers.ErrStreamIdle, text[:6], true, true},
		{"stall with comments", scripted.Text(text).WithComments(50).StallAfter(2), providers.ErrStreamIdle, text[:6], true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/no retries", func(t *testing.T) {
			srv := scripted.New(t, tt.reply, scripted.Text("must not be requested"))
			c := openai.New(openai.Config{BaseURL: srv.URL(), IdleTimeout: 2 * time.Second, MaxRetries: -1})
			resp, err := c.Stream(context.Background(), hello, nil)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(tt.name, "error event") && (!strings.Contains(err.Error(), "upstream died") || errors.Is(err, providers.ErrStreamCut)) {
				t.Errorf("the server's message is lost or the error is a cut: %v", err)
			}
			if resp == nil || resp.Message.Text() != tt.wantText || len(resp.Message.ToolCalls()) != 0 {
				t.Errorf("response = %#v", resp)
			}
		})
		t.Run(tt.name+"/retried", func(t *testing.T) {
			srv := scripted.New(t, tt.reply, scripted.Text("second try"))
			var rec recorder
			resp, err := newClient(srv, "").Stream(context.Background(), hello, rec.on)
			retries := rec.of("retry")
			if !tt.retried {
				if err == nil || len(retries) != 0 || len(srv.Requests()) != 1 {
					t.Fatalf("err %v, %d retries, %d requests: an error event was retried", err, len(retries), len(srv.Requests()))
				}
				return
			}
			if err != nil || resp.Message.Text() != "second try" || len(retries) != 1 || len(srv.Requests()) != 2 {
				t.Fatalf("err %v, text %q, %d retries, %d requests", err, resp.Message.Text(), len(retries), len(srv.Requests()))
			}
			if r := retries[0].(providers.Retry); r.Discarded != tt.discarded {
				t.Errorf("Discarded = %v, want %v", r.Discarded, tt.discarded)
			}
		})
	}
}

func TestNotAnAPIServer(t *testing.T) {
	page := `<!DOCTYPE HTML><html><head><title>Error response</title></head><body><h1>Error response</h1>
<p>Error code: 501</p><p>Message: Unsupported method ('POST').</p></body></html>` + strings.Repeat("\n", 2000)
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotImplemented)
		io.WriteString(w, page)
	}))
	defer srv.Close()
	c := openai.New(openai.Config{BaseURL: srv.URL, BaseDelay: time.Millisecond})
	_, err := c.Stream(context.Background(), hello, nil)
	var ae *providers.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 501 || ae.Retryable || n != 1 {
		t.Fatalf("err %v after %d requests", err, n)
	}
	if msg := err.Error(); strings.Contains(msg, "<") || !strings.Contains(msg, "Error response") || len(msg) > 200 {
		t.Errorf("message %q", msg)
	}
}

func TestStreamOptionsRejected(t *testing.T) {
	srv := scripted.NewWithOptions(t, scripted.Options{RejectStreamOptions: true}, scripted.Text("one"), scripted.Text("two"))
	c := newClient(srv, "")
	for _, want := range []string{"one", "two"} {
		resp, err := c.Stream(context.Background(), hello, nil)
		if err != nil || resp.Message.Text() != want {
			t.Fatalf("text %q err %v", resp.Message.Text(), err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Status != 400 || reqs[1].Chat.StreamOptions != nil || reqs[2].Chat.StreamOptions != nil {
		t.Errorf("requests: %d", len(reqs))
	}
}

func TestStreamOptionsRejectedReply(t *testing.T) {
	srv := scripted.New(t, scripted.StreamOptionsRejected(), scripted.Text("ok"))
	resp, err := newClient(srv, "").Stream(context.Background(), hello, nil)
	if err != nil || resp.Message.Text() != "ok" || resp.Usage != (providers.Usage{}) {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestCancel(t *testing.T) {
	t.Run("while streaming", func(t *testing.T) {
		never := make(chan struct{})
		srv := scripted.New(t, scripted.Text("a long answer").HoldAfterEvents(2, never))
		c := openai.New(openai.Config{BaseURL: srv.URL()}) // default idle timeout: only cancellation can end this
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := c.Stream(ctx, hello, func(e providers.StreamEvent) {
			if _, ok := e.(providers.TextDelta); ok {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if resp.Message.Text() == "" {
			t.Error("partial text lost")
		}
	})
	t.Run("while waiting to retry", func(t *testing.T) {
		srv := scripted.New(t, scripted.Error(503, "busy"))
		c := openai.New(openai.Config{BaseURL: srv.URL(), BaseDelay: time.Hour, MaxDelay: 2 * time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := c.Stream(ctx, hello, func(e providers.StreamEvent) {
			if _, ok := e.(providers.Retry); ok {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestStreamRawShapes(t *testing.T) {
	// Ollama-like: whole calls in one chunk without index; usage in every chunk.
	raw := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}},` +
			`{"id":"c2","type":"function","function":{"name":"b","arguments":"{\"x\":1}"}}]}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`,
	}
	srv := scripted.New(t, scripted.Reply{Raw: raw})
	resp, err := newClient(srv, "").Stream(context.Background(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Message.ToolCalls()
	if len(got) != 2 || got[0] != (providers.ToolCall{ID: "c1", Name: "a", Arguments: "{}"}) || got[1] != (providers.ToolCall{ID: "c2", Name: "b", Arguments: `{"x":1}`}) {
		t.Errorf("calls = %#v", got)
	}
	if resp.Usage != (providers.Usage{InputTokens: 3, OutputTokens: 2}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

const hiChunk = `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`
