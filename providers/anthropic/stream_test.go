package anthropic

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scriptedanthropic"
	"github.com/agent-dev/agent/providers"
)

// newClient returns a client of srv that does not sleep between retries.
func newClient(t *testing.T, srv *scriptedanthropic.Server, cfg Config) (*Client, *[]time.Duration) {
	t.Helper()
	cfg.BaseURL = srv.URL()
	c := New(cfg)
	var waits []time.Duration
	c.retry.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	return c, &waits
}

func collect(events *[]providers.StreamEvent) func(providers.StreamEvent) {
	return func(e providers.StreamEvent) { *events = append(*events, e) }
}

func userMsg(text string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
}

func TestStreamTextThinkingAndUsage(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(
		scriptedanthropic.Thinking("Let me think.", "sig-1"),
		scriptedanthropic.Text("Hello, world."),
	).WithPings(2).WithUsage(scriptedanthropic.Usage{Input: 10, Output: 7, CacheRead: 100, CacheWrite: 20}))
	c, _ := newClient(t, srv, Config{APIKey: "sk-ant-secret"})
	var events []providers.StreamEvent
	resp, err := c.Stream(context.Background(), providers.Request{Model: "claude-x", Messages: []providers.Message{userMsg("hi")}}, collect(&events))
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.Part{
		providers.Reasoning{Text: "Let me think.", Signature: "sig-1"},
		providers.Text{Text: "Hello, world."},
	}
	if !reflect.DeepEqual(resp.Message.Parts, want) || resp.FinishReason != providers.FinishStop {
		t.Errorf("response = %#v, %q", resp.Message.Parts, resp.FinishReason)
	}
	if u := resp.Usage; u != (providers.Usage{InputTokens: 130, OutputTokens: 7, CachedInputTokens: 100, CacheWriteTokens: 20}) {
		t.Errorf("usage = %+v", u)
	}
	var reasoning, text string
	for _, e := range events {
		switch e := e.(type) {
		case providers.ReasoningDelta:
			reasoning += e.Text
		case providers.TextDelta:
			text += e.Text
		}
	}
	if reasoning != "Let me think." || text != "Hello, world." {
		t.Errorf("deltas: reasoning %q, text %q", reasoning, text)
	}
	req := srv.Requests()[0]
	if req.Header.Get("X-Api-Key") != "sk-ant-secret" || req.Header.Get("Anthropic-Version") == "" || !req.Params.Stream {
		t.Errorf("headers %v, stream %v", req.Header, req.Params.Stream)
	}
}

func TestStreamSeveralToolCalls(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(
		scriptedanthropic.Text("Reading both."),
		scriptedanthropic.ToolUse("toolu_1", "read_file", `{"path":"a.go"}`),
		scriptedanthropic.ToolUse("toolu_2", "read_file", `{"path":"b.go"}`),
		scriptedanthropic.ToolUse("toolu_3", "list", ``),
	))
	c, _ := newClient(t, srv, Config{})
	var events []providers.StreamEvent
	resp, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("go")}}, collect(&events))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	want := []providers.ToolCall{
		{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "toolu_2", Name: "read_file", Arguments: `{"path":"b.go"}`},
		{ID: "toolu_3", Name: "list", Arguments: `{}`},
	}
	if !reflect.DeepEqual(calls, want) || resp.FinishReason != providers.FinishToolCalls || resp.Message.Text() != "Reading both." {
		t.Errorf("calls %#v, finish %q, text %q", calls, resp.FinishReason, resp.Message.Text())
	}
	var begins []providers.ToolCallBegin
	for _, e := range events {
		if b, ok := e.(providers.ToolCallBegin); ok {
			begins = append(begins, b)
		}
	}
	if len(begins) != 3 || begins[2] != (providers.ToolCallBegin{Index: 2, ID: "toolu_3", Name: "list"}) {
		t.Errorf("begins = %v", begins)
	}
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		wire string
		want providers.FinishReason
	}{
		{"end_turn", providers.FinishStop},
		{"stop_sequence", providers.FinishStop},
		{"tool_use", providers.FinishToolCalls},
		{"max_tokens", providers.FinishLength},
		{"pause_turn", providers.FinishPause},
		{"refusal", providers.FinishContentFilter},
	}
	for _, tt := range tests {
		srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("x")).WithStopReason(tt.wire))
		c, _ := newClient(t, srv, Config{})
		resp, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
		if err != nil || resp.FinishReason != tt.want {
			t.Errorf("%s: finish %q, err %v; want %q", tt.wire, resp.FinishReason, err, tt.want)
		}
	}
}

func TestRetries(t *testing.T) {
	srv := scriptedanthropic.New(t,
		scriptedanthropic.Error(429, "rate_limit_error", "slow down").WithRetryAfter("3"),
		scriptedanthropic.Error(529, "overloaded_error", "Overloaded"),
		scriptedanthropic.Answer(scriptedanthropic.Text("never shown")).ErrorAfter(1, "overloaded_error", "Overloaded"),
		scriptedanthropic.Answer(scriptedanthropic.Text("ok")),
	)
	c, waits := newClient(t, srv, Config{})
	var retries []providers.Retry
	resp, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, func(e providers.StreamEvent) {
		if r, ok := e.(providers.Retry); ok {
			retries = append(retries, r)
		}
	})
	if err != nil || resp.Message.Text() != "ok" {
		t.Fatalf("resp %q, err %v", resp.Message.Text(), err)
	}
	if len(retries) != 3 || (*waits)[0] != 3*time.Second {
		t.Errorf("retries %v, waits %v", retries, *waits)
	}
	var ae *providers.APIError
	if !errors.As(retries[1].Err, &ae) || ae.StatusCode != 529 || !strings.Contains(ae.Message, "Overloaded") {
		t.Errorf("second retry's error = %v", retries[1].Err)
	}
}

func TestErrorsNotRetried(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Error(401, "authentication_error", "invalid x-api-key"))
	c, _ := newClient(t, srv, Config{APIKey: "sk-ant-secret"})
	_, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
	var ae *providers.APIError
	if !errors.As(err, &ae) || !ae.IsAuth() || len(srv.Requests()) != 1 || strings.Contains(err.Error(), "sk-ant-secret") {
		t.Errorf("err %v after %d requests", err, len(srv.Requests()))
	}
}

func TestStreamFaults(t *testing.T) {
	thinkThenText := scriptedanthropic.Answer(
		scriptedanthropic.Thinking("hmm", "sig"),
		scriptedanthropic.Text("partial answer"),
		scriptedanthropic.ToolUse("toolu_1", "read_file", `{"path":"a"}`),
	)
	tests := []struct {
		name    string
		reply   scriptedanthropic.Reply
		want    error // nil: an error with the server's message
		parts   []providers.Part
		retried bool
	}{
		// message_start, block 0 start, 1 thinking delta: cut before the signature.
		{"cut in thinking", thinkThenText.CutAfter(3), providers.ErrStreamCut,
			[]providers.Part{providers.Reasoning{Text: "hmm"}}, true},
		// ... thinking (start, delta, signature, stop), text start and 2 deltas.
		{"overloaded event mid-stream", thinkThenText.ErrorAfter(8, "overloaded_error", "Overloaded"), nil,
			[]providers.Part{providers.Reasoning{Text: "hmm", Signature: "sig"}, providers.Text{Text: "partial "}}, true},
		{"invalid request event mid-stream", thinkThenText.ErrorAfter(8, "invalid_request_error", "Bad"), nil,
			[]providers.Part{providers.Reasoning{Text: "hmm", Signature: "sig"}, providers.Text{Text: "partial "}}, false},
		{"no message_stop", scriptedanthropic.Reply{Blocks: thinkThenText.Blocks, OmitStop: true}, providers.ErrStreamCut,
			[]providers.Part{providers.Reasoning{Text: "hmm", Signature: "sig"}, providers.Text{Text: "partial answer"}}, true},
		{"stall", thinkThenText.StallAfter(6), providers.ErrStreamIdle,
			[]providers.Part{providers.Reasoning{Text: "hmm", Signature: "sig"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scriptedanthropic.New(t, tt.reply)
			c, _ := newClient(t, srv, Config{IdleTimeout: 2 * time.Second, MaxRetries: -1})
			resp, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
			if tt.want == nil && (err == nil || errors.Is(err, providers.ErrStreamCut)) || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !reflect.DeepEqual(resp.Message.Parts, tt.parts) {
				t.Errorf("parts = %#v, want %#v", resp.Message.Parts, tt.parts)
			}
		})
		t.Run(tt.name+"/retried", func(t *testing.T) {
			srv := scriptedanthropic.New(t, tt.reply, scriptedanthropic.Answer(scriptedanthropic.Text("second try")))
			c, _ := newClient(t, srv, Config{IdleTimeout: 2 * time.Second})
			var events []providers.StreamEvent
			resp, err := c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, collect(&events))
			var retries []providers.Retry
			for _, e := range events {
				if r, ok := e.(providers.Retry); ok {
					retries = append(retries, r)
				}
			}
			if !tt.retried {
				if err == nil || len(retries) != 0 || len(srv.Requests()) != 1 {
					t.Fatalf("err %v, %d retries, %d requests", err, len(retries), len(srv.Requests()))
				}
				return
			}
			if err != nil || resp.Message.Text() != "second try" || len(retries) != 1 || !retries[0].Discarded || len(srv.Requests()) != 2 {
				t.Fatalf("err %v, text %q, retries %v, %d requests", err, resp.Message.Text(), retries, len(srv.Requests()))
			}
		})
	}
}

func TestConnectionRefusedRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := New(Config{BaseURL: "http://" + addr, MaxRetries: 2})
	n := 0
	c.retry.Sleep = func(context.Context, time.Duration) error { n++; return nil }
	_, err = c.Stream(context.Background(), providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
	var ae *providers.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 0 || n != 2 {
		t.Errorf("err %v after %d retries", err, n)
	}
}

func TestCancel(t *testing.T) {
	srv := scriptedanthropic.New(t, scriptedanthropic.Answer(scriptedanthropic.Text("slow")).StallAfter(2))
	c, _ := newClient(t, srv, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		srv.WaitRequests(ctx, 1) // the request is in flight: the stream is stalled
		cancel()
	}()
	_, err := c.Stream(ctx, providers.Request{Model: "m", Messages: []providers.Message{userMsg("q")}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
