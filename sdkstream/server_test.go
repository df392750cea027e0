package sdkstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// host is the SDK's side of a Server under test.
type host struct {
	t    *testing.T
	srv  *Server
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

// newHost runs a Server whose turns answer with answer(prompt text, ctx).
func newHost(t *testing.T, cfg Config) *host {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg.In, cfg.Out = inR, outW
	if cfg.Init.SessionID == "" {
		cfg.Init = Init{SessionID: "s1", Model: "m", Cwd: "/w", PermissionMode: "ask", Tools: []string{"bash"}}
	}
	s := New(cfg)
	h := &host{t: t, srv: s, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		err := s.Run(context.Background(), nil)
		outW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let the server finish its writes
		if err := <-h.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return h
}

func (h *host) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatal(err)
	}
}

// next reads the next message.
func (h *host) next() map[string]any {
	h.t.Helper()
	if !h.out.Scan() {
		h.t.Fatal("output ended")
	}
	var m map[string]any
	if err := json.Unmarshal(h.out.Bytes(), &m); err != nil {
		h.t.Fatalf("not JSON: %q", h.out.Text())
	}
	return m
}

// until reads messages until one of type typ, returning all read.
func (h *host) until(typ string) []map[string]any {
	h.t.Helper()
	var all []map[string]any
	for {
		m := h.next()
		all = append(all, m)
		if m["type"] == typ {
			return all
		}
	}
}

// echo is a Turn that answers a prompt with "you said: TEXT" in two deltas.
func echo(_ context.Context, p turn.Prompt) <-chan loop.Event {
	ch := make(chan loop.Event, 8)
	text := "you said: " + p.Message.Text()
	ch <- loop.StepStarted{Step: 1}
	ch <- loop.TextDelta{Text: text[:4]}
	ch <- loop.TextDelta{Text: text[4:]}
	ch <- loop.Usage{Step: 1, Usage: providers.Usage{InputTokens: 10, OutputTokens: 3}}
	ch <- loop.Done{Answer: text, Reason: loop.StopAnswered, Steps: 1, Usage: providers.Usage{InputTokens: 10, OutputTokens: 3}}
	close(ch)
	return ch
}

func user(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

func TestQueuedUserMessagesAreTurnsInOrder(t *testing.T) {
	h := newHost(t, Config{Turn: echo})
	h.send(user("one"))
	h.send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"two"}]}}`)
	first := h.until("result")
	if first[0]["type"] != "system" || first[0]["subtype"] != "init" || first[0]["session_id"] != "s1" {
		t.Errorf("first message %v, want system init", first[0])
	}
	var asst map[string]any
	for _, m := range first {
		if m["type"] == "assistant" {
			asst = m
		}
	}
	content := asst["message"].(map[string]any)["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "you said: one" || asst["parent_tool_use_id"] != nil {
		t.Errorf("assistant message %v", asst)
	}
	res := first[len(first)-1]
	if res["subtype"] != "success" || res["is_error"] != false || res["result"] != "you said: one" || res["num_turns"] != 1.0 ||
		res["usage"].(map[string]any)["input_tokens"] != 10.0 {
		t.Errorf("result %v", res)
	}
	second := h.until("result")
	if second[0]["type"] == "system" {
		t.Error("system init was sent twice")
	}
	if r := second[len(second)-1]; r["result"] != "you said: two" {
		t.Errorf("second result %v", r)
	}
}

func TestControlRequests(t *testing.T) {
	var mode, model string
	h := newHost(t, Config{Turn: echo,
		SetMode: func(m string) error {
			if m == "bogus" {
				return errors.New("unknown permission mode")
			}
			mode = m
			return nil
		},
		SetModel: func(m string) error { model = m; return nil }})
	for _, tc := range []struct{ req, subtype, errPart string }{
		{`{"subtype":"initialize"}`, "success", ""},
		{`{"subtype":"set_permission_mode","mode":"acceptEdits"}`, "success", ""},
		{`{"subtype":"set_permission_mode","mode":"bogus"}`, "error", "unknown permission mode"},
		{`{"subtype":"set_model","model":"big"}`, "success", ""},
		{`{"subtype":"get_context_usage"}`, "error", "unsupported control request: get_context_usage"},
		{`{"subtype":"interrupt"}`, "success", ""},
	} {
		h.send(`{"type":"control_request","request_id":"r1","request":` + tc.req + `}`)
		m := h.next()
		resp := m["response"].(map[string]any)
		if m["type"] != "control_response" || resp["request_id"] != "r1" || resp["subtype"] != tc.subtype ||
			(tc.errPart != "" && !strings.Contains(resp["error"].(string), tc.errPart)) {
			t.Errorf("%s: %v", tc.req, m)
		}
	}
	if mode != "acceptEdits" || model != "big" {
		t.Errorf("mode %q, model %q", mode, model)
	}
}

// TestInterruptEndsTheTurn: interrupt cancels the running turn, whose
// result is an error; the next message runs.
func TestInterruptEndsTheTurn(t *testing.T) {
	started := make(chan struct{}, 1)
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		if p.Message.Text() != "long" {
			return echo(ctx, p)
		}
		ch := make(chan loop.Event)
		go func() {
			defer close(ch)
			ch <- loop.TextDelta{Text: "working"}
			started <- struct{}{}
			<-ctx.Done()
			ch <- loop.Done{Reason: loop.StopCancelled, Err: ctx.Err()}
		}()
		return ch
	}
	h := newHost(t, Config{Turn: turnFn, Partial: true})
	h.send(user("long"))
	msgs := h.until("stream_event")
	if ev := msgs[len(msgs)-1]["event"].(map[string]any); ev["type"] != "message_start" {
		t.Errorf("first partial %v", ev)
	}
	<-started
	h.send(`{"type":"control_request","request_id":"i1","request":{"subtype":"interrupt"}}`)
	var res, ack map[string]any
	for res == nil || ack == nil { // the two in either order
		switch m := h.next(); m["type"] {
		case "result":
			res = m
		case "control_response":
			ack = m
		}
	}
	if ack["response"].(map[string]any)["subtype"] != "success" {
		t.Errorf("interrupt's response %v", ack)
	}
	if res["subtype"] != "error_during_execution" || res["is_error"] != true || len(res["errors"].([]any)) != 1 {
		t.Errorf("interrupted result %v", res)
	}
	h.send(user("after"))
	if msgs := h.until("result"); msgs[len(msgs)-1]["result"] != "you said: after" {
		t.Errorf("after an interrupt: %v", msgs[len(msgs)-1])
	}
}

// TestCanUseTool: the agent's question goes out as a control request and
// the host's answer comes back; a subagent's messages carry its parent.
func TestCanUseTool(t *testing.T) {
	var h *host
	verdicts := make(chan Verdict, 2)
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event)
		go func() {
			defer close(ch)
			ch <- loop.ToolCallStarted{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}
			v, err := h.srv.CanUseTool(ctx, "bash", json.RawMessage(`{"command":"ls"}`), "c1", "")
			if err != nil {
				t.Errorf("CanUseTool: %v", err)
			}
			verdicts <- v
			ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: loop.TextDelta{Text: "child"}}}
			ch <- loop.ToolProgress{ID: "t1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "t1", Event: loop.Done{Reason: loop.StopAnswered}}}
			ch <- loop.Done{Reason: loop.StopAnswered}
		}()
		return ch
	}
	h = newHost(t, Config{Turn: turnFn, Init: Init{SessionID: "s"}})
	h.send(user("go"))
	msgs := h.until("control_request")
	req := msgs[len(msgs)-1]
	r := req["request"].(map[string]any)
	if r["subtype"] != "can_use_tool" || r["tool_name"] != "bash" || r["tool_use_id"] != "c1" || r["input"].(map[string]any)["command"] != "ls" {
		t.Errorf("can_use_tool request %v", req)
	}
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + req["request_id"].(string) +
		`","response":{"behavior":"deny","message":"not now"}}}`)
	if v := <-verdicts; v.Allow || v.Message != "not now" {
		t.Errorf("verdict %+v", v)
	}
	msgs = h.until("result")
	var child bool
	for _, m := range msgs {
		if m["type"] == "assistant" && m["parent_tool_use_id"] == "t1" {
			child = true
		}
	}
	if !child {
		t.Errorf("no subagent message with parent_tool_use_id: %v", msgs)
	}
}

// TestInitializeCarriesTheHostsSystemPrompt: initialize's systemPrompt
// (a string or its parts) and appendSystemPrompt reach SetSystemPrompt;
// an empty one (the SDK's default) and the preset's object do not
// replace agent's; a refusal is a warning, not a failed initialize.
func TestInitializeCarriesTheHostsSystemPrompt(t *testing.T) {
	var got []string
	refuse := false
	h := newHost(t, Config{Turn: echo, Warn: func(string) {}, SetSystemPrompt: func(custom, add string) error {
		got = append(got, custom+"|"+add)
		if refuse {
			return errors.New("a continued session keeps its system prompt")
		}
		return nil
	}})
	for _, req := range []string{
		`{"subtype":"initialize","systemPrompt":["You are a pirate.",""," Say arr. "]}`,
		`{"subtype":"initialize","systemPrompt":"Be brief."}`,
		`{"subtype":"initialize","systemPrompt":[""],"appendSystemPrompt":"In French."}`,
		`{"subtype":"initialize","systemPrompt":[""]}`,
		`{"subtype":"initialize","systemPrompt":{"type":"preset","preset":"claude_code"}}`,
	} {
		h.send(`{"type":"control_request","request_id":"r1","request":` + req + `}`)
		if m := h.next(); m["response"].(map[string]any)["subtype"] != "success" {
			t.Errorf("%s: %v", req, m)
		}
	}
	want := []string{"You are a pirate.\n\nSay arr.|", "Be brief.|", "|In French."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SetSystemPrompt got %q, want %q", got, want)
	}
	refuse = true
	h.send(`{"type":"control_request","request_id":"r2","request":{"subtype":"initialize","systemPrompt":"x"}}`)
	if m := h.next(); m["response"].(map[string]any)["subtype"] != "success" {
		t.Errorf("a refused system prompt failed initialize: %v", m)
	}
}
