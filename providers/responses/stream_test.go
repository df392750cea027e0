package responses

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scriptedresponses"
	"github.com/agent-dev/agent/providers"
)

// newTestClient is a client of srv whose retries do not wait.
func newTestClient(srv *scriptedresponses.Server, cfg Config) *Client {
	cfg.BaseURL = srv.URL()
	c := New(cfg)
	c.retry.Sleep = func(context.Context, time.Duration) error { return nil }
	return c
}

// fixture is a transcript of a documented stream in testdata.
func fixture(t *testing.T, name string) scriptedresponses.Reply {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return scriptedresponses.Reply{SSE: string(b)}
}

// collect streams req and returns the response, the error and the events.
func collect(t *testing.T, c *Client, req providers.Request) (*providers.Response, error, []providers.StreamEvent) {
	t.Helper()
	var events []providers.StreamEvent
	resp, err := c.Stream(context.Background(), req, func(ev providers.StreamEvent) { events = append(events, ev) })
	return resp, err, events
}

func deltas[T providers.StreamEvent](events []providers.StreamEvent, text func(T) string) string {
	var b strings.Builder
	for _, ev := range events {
		if e, ok := ev.(T); ok {
			b.WriteString(text(e))
		}
	}
	return b.String()
}

func TestStreamText(t *testing.T) {
	reply := scriptedresponses.Text("Hello from the Responses API.")
	reply.Usage = scriptedresponses.Usage{Input: 1200, Cached: 1024, Output: 9}
	srv := scriptedresponses.New(t, reply)
	resp, err, events := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1", Messages: []providers.Message{providers.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := deltas(events, func(e providers.TextDelta) string { return e.Text }); got != "Hello from the Responses API." {
		t.Errorf("text deltas %q", got)
	}
	if len(events) < 5 {
		t.Errorf("the text came in %d events, want it streamed in pieces", len(events))
	}
	if resp.Message.Text() != "Hello from the Responses API." || resp.FinishReason != providers.FinishStop {
		t.Errorf("response %q, finish %q", resp.Message.Text(), resp.FinishReason)
	}
	if want := (providers.Usage{InputTokens: 1200, CachedInputTokens: 1024, OutputTokens: 9}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	p := srv.Requests()[0].Params
	if p.Reasoning != nil || len(p.Include) != 0 {
		t.Errorf("gpt-4.1 takes no reasoning parameters, sent %+v include %v", p.Reasoning, p.Include)
	}
}

func TestStreamReasoningSummariesAndParallelCalls(t *testing.T) {
	srv := scriptedresponses.New(t, fixture(t, "reasoning_tool.sse"))
	resp, err, events := collect(t, newTestClient(srv, Config{ReasoningEffort: "high"}), providers.Request{Model: "gpt-5-mini",
		Messages: []providers.Message{providers.UserText("where are the tests?")}})
	if err != nil {
		t.Fatal(err)
	}
	summary := "**Finding the tests**\n\nI should list the Go files first.\n\nThen grep for TestMain."
	if got := deltas(events, func(e providers.ReasoningDelta) string { return e.Text }); got != summary {
		t.Errorf("reasoning deltas %q, want %q", got, summary)
	}
	var begun []string
	for _, ev := range events {
		if b, ok := ev.(providers.ToolCallBegin); ok {
			begun = append(begun, b.ID+" "+b.Name)
		}
	}
	if want := []string{"call_Xk2 list_files", "call_Yq7 grep"}; !reflect.DeepEqual(begun, want) {
		t.Errorf("calls begun %v, want %v", begun, want)
	}
	want := []providers.Part{
		providers.Reasoning{Text: summary, Encrypted: "gAAAAABosVN1-encrypted-reasoning==", ItemID: "rs_68b1a"},
		providers.ToolCall{ID: "call_Xk2", Name: "list_files", Arguments: `{"path":"."}`},
		providers.ToolCall{ID: "call_Yq7", Name: "grep", Arguments: `{"pattern":"TestMain"}`},
	}
	if !reflect.DeepEqual(resp.Message.Parts, want) {
		t.Errorf("parts\n%#v\nwant\n%#v", resp.Message.Parts, want)
	}
	if resp.FinishReason != providers.FinishToolCalls {
		t.Errorf("finish %q", resp.FinishReason)
	}
	if want := (providers.Usage{InputTokens: 2143, CachedInputTokens: 1920, OutputTokens: 187, ReasoningTokens: 128}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	p := srv.Requests()[0].Params
	if p.Reasoning == nil || p.Reasoning.Effort != "high" || p.Reasoning.Summary != "auto" {
		t.Errorf("reasoning %+v, want effort high and summary auto", p.Reasoning)
	}
	if p.Store == nil || *p.Store || !reflect.DeepEqual(p.Include, []string{"reasoning.encrypted_content"}) {
		t.Errorf("store %v include %v: want store false and the encrypted reasoning included", p.Store, p.Include)
	}
}

// TestReasoningCarriedIntoNextRequest follows a tool call's round trip: the
// encrypted reasoning of the first response goes back, before its calls,
// in the second request, which is otherwise the whole conversation.
func TestReasoningCarriedIntoNextRequest(t *testing.T) {
	srv := scriptedresponses.New(t, fixture(t, "reasoning_tool.sse"), scriptedresponses.Text("Two test files."))
	c := newTestClient(srv, Config{})
	req := providers.Request{Model: "gpt-5-mini", System: "You are a coding agent.", CacheKey: "session-1",
		Messages: []providers.Message{providers.UserText("where are the tests?")}}
	resp, err, _ := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, resp.Message,
		providers.Message{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "call_Xk2", Name: "list_files", Content: "a_test.go"}}},
		providers.Message{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "call_Yq7", Name: "grep", Content: ""}}})
	if _, err, _ := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	p := srv.Requests()[1].Params
	var kinds []string
	for _, it := range p.Input {
		kinds = append(kinds, it.Type)
	}
	if want := []string{"message", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("input items %v, want %v", kinds, want)
	}
	rs := p.Input[1]
	if rs.ID != "rs_68b1a" || rs.EncryptedContent != "gAAAAABosVN1-encrypted-reasoning==" || len(rs.Summary) != 1 || rs.Summary[0].Type != "summary_text" {
		t.Errorf("reasoning item %+v", rs)
	}
	if p.Input[2].CallID != "call_Xk2" || p.Input[2].Arguments != `{"path":"."}` || p.Input[4].CallID != "call_Xk2" || string(p.Input[4].Output) != `"a_test.go"` {
		t.Errorf("call and output %+v %+v", p.Input[2], p.Input[4])
	}
	if string(p.Input[5].Output) != `"(no output)"` {
		t.Errorf("an empty result is sent as %s", p.Input[5].Output)
	}
	if p.Instructions != "You are a coding agent." || p.PromptCacheKey != "session-1" {
		t.Errorf("instructions %q, prompt_cache_key %q", p.Instructions, p.PromptCacheKey)
	}
}

func TestRequestShape(t *testing.T) {
	srv := scriptedresponses.New(t, scriptedresponses.Text("ok"))
	c := newTestClient(srv, Config{MaxOutputTokens: 4000})
	png := []byte("\x89PNG\r\n\x1a\n")
	req := providers.Request{Model: "gpt-4.1", ToolChoice: providers.ToolChoiceNone,
		Tools: []providers.ToolDefinition{
			{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "grep", Description: "Search.", Deferred: true},
		},
		Messages: []providers.Message{
			{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "what is this?"}, providers.Image{MediaType: "image/png", Data: png}}},
			{Role: providers.RoleAssistant, Parts: []providers.Part{
				providers.Reasoning{Text: "cut", Encrypted: "gAAA-cut", ItemID: "rs_cut"}, // a response cut while reasoning: nothing follows it
			}},
			providers.UserText("go on"),
			{Role: providers.RoleAssistant, Parts: []providers.Part{
				providers.Reasoning{Text: "an Anthropic thought", Signature: "sig"}, // not this API's: not sent
				providers.WebSearch{ID: "ws_1", Query: "png"},
				providers.Text{Text: "A PNG header."},
				providers.Citation{URL: "https://example.com"},
			}},
		}}
	if _, err, _ := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(body["input"])
	wantInput := `[{"content":[{"text":"what is this?","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,iVBORw0KGgo=","type":"input_image"}],"role":"user","type":"message"},` +
		`{"content":[{"text":"go on","type":"input_text"}],"role":"user","type":"message"},` +
		`{"content":"A PNG header.","role":"assistant","type":"message"}]`
	if string(input) != wantInput {
		t.Errorf("input\n%s\nwant\n%s", input, wantInput)
	}
	tools, _ := json.Marshal(body["tools"])
	wantTools := `[{"description":"Read a file.","name":"read_file","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},"strict":false,"type":"function"},` +
		`{"name":"grep","parameters":{"type":"object"},"strict":false,"type":"function"}]`
	if string(tools) != wantTools {
		t.Errorf("tools\n%s\nwant\n%s", tools, wantTools)
	}
	if body["tool_choice"] != "none" || body["stream"] != true || body["max_output_tokens"] != 4000.0 || body["parallel_tool_calls"] != true {
		t.Errorf("tool_choice %v stream %v max_output_tokens %v parallel_tool_calls %v", body["tool_choice"], body["stream"], body["max_output_tokens"], body["parallel_tool_calls"])
	}
	if _, ok := body["prompt_cache_key"]; ok {
		t.Error("a request without a cache key sent prompt_cache_key")
	}
}

func TestToolResultImages(t *testing.T) {
	srv := scriptedresponses.New(t, scriptedresponses.Text("ok"))
	req := providers.Request{Model: "gpt-4.1", Messages: []providers.Message{
		providers.UserText("shot"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c1", Name: "screenshot", Arguments: "{}"}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c1", Name: "screenshot", Content: "the screen",
			Images: []providers.Image{{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8}}}}}},
	}}
	if _, err, _ := collect(t, newTestClient(srv, Config{}), req); err != nil {
		t.Fatal(err)
	}
	out := srv.Requests()[0].Params.Input[2].Output
	want := `[{"text":"the screen","type":"input_text"},{"detail":"auto","image_url":"data:image/jpeg;base64,/9g=","type":"input_image"}]`
	if !jsonEqual(out, want) {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
}

func TestWebSearchAnswer(t *testing.T) {
	srv := scriptedresponses.New(t, fixture(t, "web_search.sse"))
	resp, err, events := collect(t, newTestClient(srv, Config{WebSearch: true}), providers.Request{Model: "gpt-4.1",
		Messages: []providers.Message{providers.UserText("what is new in Go 1.26?")}})
	if err != nil {
		t.Fatal(err)
	}
	sentence := "Go 1.26 makes the Green Tea garbage collector the default."
	search := providers.WebSearch{ID: "ws_67c9fa05", Query: "go 1.26 release notes", Vendor: "openai-responses",
		Sources: []providers.Source{{URL: "https://go.dev/doc/go1.26"}, {URL: "https://go.dev/blog/go1.26"}}}
	cite := providers.Citation{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", CitedText: sentence}
	var got []providers.StreamEvent
	for _, ev := range events {
		switch ev.(type) {
		case providers.WebSearched, providers.Cited:
			got = append(got, ev)
		}
	}
	if want := []providers.StreamEvent{providers.WebSearched{Search: search}, providers.Cited{Citation: cite}}; !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%#v\nwant\n%#v", got, want)
	}
	if want := []providers.Part{search, providers.Text{Text: sentence}, cite}; !reflect.DeepEqual(resp.Message.Parts, want) {
		t.Errorf("parts\n%#v\nwant\n%#v", resp.Message.Parts, want)
	}
	p := srv.Requests()[0].Params
	if len(p.Tools) != 1 || p.Tools[0].Type != "web_search" || !reflect.DeepEqual(p.Include, []string{"web_search_call.action.sources"}) {
		t.Errorf("tools %+v include %v", p.Tools, p.Include)
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a []byte, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

func TestFailures(t *testing.T) {
	t.Run("429 is retried", func(t *testing.T) {
		srv := scriptedresponses.New(t, scriptedresponses.Error(429, "Rate limit reached"), scriptedresponses.Text("ok"))
		resp, err, events := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"})
		if err != nil || resp.Message.Text() != "ok" {
			t.Fatalf("err %v, text %q", err, resp.Message.Text())
		}
		if r, ok := events[0].(providers.Retry); !ok || !strings.Contains(r.Err.Error(), "Rate limit reached") {
			t.Errorf("first event %#v, want a retry naming the server's message", events[0])
		}
	})
	t.Run("400 is not retried and names the server's message", func(t *testing.T) {
		srv := scriptedresponses.New(t, scriptedresponses.Error(400, "Unknown parameter: 'reasoning.effort'."))
		_, err, _ := collect(t, newTestClient(srv, Config{APIKey: "sk-secret"}), providers.Request{Model: "gpt-4.1"})
		var ae *providers.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Message != "Unknown parameter: 'reasoning.effort'." {
			t.Fatalf("error %v", err)
		}
		if got := len(srv.Requests()); got != 1 {
			t.Errorf("%d requests, want 1", got)
		}
		if h := srv.Requests()[0].Header.Get("Authorization"); h != "Bearer sk-secret" {
			t.Errorf("Authorization %q", h)
		}
	})
	t.Run("response.failed with server_error is retried", func(t *testing.T) {
		failed := scriptedresponses.Reply{FailCode: "server_error", FailMessage: "The server had an error."}
		srv := scriptedresponses.New(t, failed, scriptedresponses.Text("ok"))
		resp, err, _ := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"})
		if err != nil || resp.Message.Text() != "ok" {
			t.Fatalf("err %v, text %q", err, resp.Message.Text())
		}
	})
	t.Run("response.failed with another code is an error", func(t *testing.T) {
		failed := scriptedresponses.Reply{FailCode: "invalid_prompt", FailMessage: "Invalid prompt."}
		srv := scriptedresponses.New(t, failed)
		_, err, _ := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"})
		if err == nil || !strings.Contains(err.Error(), "invalid_prompt: Invalid prompt.") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a cut stream is retried and its deltas discarded", func(t *testing.T) {
		cut := scriptedresponses.Text("partial answer that breaks")
		cut.CutAfter = 6
		srv := scriptedresponses.New(t, cut, scriptedresponses.Text("whole"))
		resp, err, events := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"})
		if err != nil || resp.Message.Text() != "whole" {
			t.Fatalf("err %v, text %q", err, resp.Message.Text())
		}
		var retry providers.Retry
		for _, ev := range events {
			if r, ok := ev.(providers.Retry); ok {
				retry = r
			}
		}
		if !retry.Discarded || !errors.Is(retry.Err, providers.ErrStreamCut) {
			t.Errorf("retry %+v, want a cut stream whose deltas are discarded", retry)
		}
	})
	t.Run("incomplete at the output limit", func(t *testing.T) {
		r := scriptedresponses.Text("long")
		r.Incomplete = "max_output_tokens"
		srv := scriptedresponses.New(t, r)
		resp, err, _ := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"})
		if err != nil || resp.FinishReason != providers.FinishLength {
			t.Fatalf("err %v finish %q", err, resp.FinishReason)
		}
	})
	t.Run("no key sends no Authorization", func(t *testing.T) {
		srv := scriptedresponses.New(t, scriptedresponses.Text("ok"))
		if _, err, _ := collect(t, newTestClient(srv, Config{}), providers.Request{Model: "gpt-4.1"}); err != nil {
			t.Fatal(err)
		}
		if h, ok := srv.Requests()[0].Header["Authorization"]; ok {
			t.Errorf("Authorization %q sent without a key", h)
		}
	})
}

func TestReasons(t *testing.T) {
	for model, want := range map[string]bool{"gpt-5": true, "gpt-5-mini": true, "o4-mini": true, "o3": true, "openai/gpt-5.1-codex": true,
		"gpt-5-chat-latest": false, "gpt-4.1": false, "gpt-4o-mini": false} {
		if got := Reasons(model); got != want {
			t.Errorf("Reasons(%q) = %v, want %v", model, got, want)
		}
	}
}
