package telemetry_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

// hasAttrs fails the test for each of want (ints as int64, lists as
// []string) that kvs lacks or has another value of.
func hasAttrs(t *testing.T, what string, kvs map[attribute.Key]attribute.Value, want map[string]any) {
	t.Helper()
	for k, w := range want {
		v, ok := kvs[attribute.Key(k)]
		if !ok {
			t.Errorf("%s: no %s (want %v)", what, k, w)
			continue
		}
		if got := v.AsInterface(); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, got, w)
		}
	}
}

func spansNamed(r *rig, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func childOf(t *testing.T, child, parent tracetest.SpanStub) {
	t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.Parent.TraceID() != parent.SpanContext.TraceID() {
		t.Errorf("%s is not a child of %s", child.Name, parent.Name)
	}
}

func TestATurnIsInvokeAgentWithChatAndExecuteToolChildren(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai-responses"})
	l := newLoop(t, answering{fake.New(toolTurn()...), "m-2025"}, tr)
	if d := run(l, conversation.New("be brief", session{"sess-1"}), "go"); d.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", d)
	}
	r.finish(t)

	turn := r.span(t, "invoke_agent agent")
	if turn.Parent.IsValid() {
		t.Errorf("the turn has a parent %v; without TRACEPARENT it is a root", turn.Parent)
	}
	if turn.Status.Code != codes.Unset {
		t.Errorf("the turn's status %v", turn.Status)
	}
	hasAttrs(t, turn.Name, attrs(turn.Attributes), map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m",
		"gen_ai.conversation.id": "sess-1", "agent.frontend": "headless", "agent.stop_reason": "answered",
		"gen_ai.usage.input_tokens": int64(250), "gen_ai.usage.output_tokens": int64(25),
	})

	chats := spansNamed(r, "chat m")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans among %v", len(chats), r.spanNames())
	}
	wantChats := []map[string]any{{
		"agent.step": int64(1), "gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.cache_creation.input_tokens": int64(10),
		"gen_ai.response.finish_reasons": []string{"tool_calls"},
	}, {
		"agent.step": int64(2), "gen_ai.usage.input_tokens": int64(150), "gen_ai.usage.output_tokens": int64(5),
		"gen_ai.usage.cache_read.input_tokens": int64(0), "gen_ai.response.finish_reasons": []string{"stop"},
	}}
	for i, chat := range chats {
		childOf(t, chat, turn)
		if chat.SpanKind != trace.SpanKindClient {
			t.Errorf("chat %d is a %v span, want client", i+1, chat.SpanKind)
		}
		hasAttrs(t, chat.Name, attrs(chat.Attributes), map[string]any{
			"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m",
			"gen_ai.response.model": "m-2025", "gen_ai.conversation.id": "sess-1",
		})
		hasAttrs(t, chat.Name, attrs(chat.Attributes), wantChats[i])
	}

	calls := []struct {
		name, id, decision, by string
		status                 codes.Code
	}{
		{"echo", "call-1", "allowed", "yolo", codes.Unset},
		{"rm", "call-2", "denied", `denied by rule "rm"`, codes.Error},
	}
	for _, c := range calls {
		s := r.span(t, "execute_tool "+c.name)
		childOf(t, s, turn)
		hasAttrs(t, s.Name, attrs(s.Attributes), map[string]any{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": c.name, "gen_ai.tool.call.id": c.id,
			"gen_ai.tool.type": "function", "gen_ai.conversation.id": "sess-1",
			"agent.tool.decision": c.decision, "agent.tool.decided_by": c.by,
		})
		if s.Status.Code != c.status {
			t.Errorf("%s: status %v, want %v", s.Name, s.Status.Code, c.status)
		}
	}
}

func TestProviderNames(t *testing.T) {
	for protocol, want := range map[string]string{"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic"} {
		r := newRig(t, telemetry.Settings{}, telemetry.Options{})
		l := newLoop(t, fake.New(fake.Text("hi")), r.tel.Session(context.Background(), telemetry.Session{Frontend: "tui", Provider: protocol}))
		run(l, conversation.New("", nil), "hello")
		r.finish(t)
		for _, name := range []string{"invoke_agent agent", "chat m"} {
			s := r.span(t, name)
			hasAttrs(t, protocol+": "+name, attrs(s.Attributes), map[string]any{"gen_ai.provider.name": want})
		}
	}
}

func TestAFailedRequestIsAnError(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	l := newLoop(t, fake.New(fake.Error(errors.New("the server said 500"))), r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "anthropic"}))
	if d := run(l, conversation.New("", nil), "go"); d.Reason != loop.StopError {
		t.Fatalf("done %+v", d)
	}
	r.finish(t)
	for _, name := range []string{"invoke_agent agent", "chat m"} {
		s := r.span(t, name)
		if s.Status.Code != codes.Error {
			t.Errorf("%s: status %v, want error", name, s.Status)
		}
		if len(s.Events) == 0 || s.Events[0].Name != "exception" {
			t.Errorf("%s: no exception event: %+v", name, s.Events)
		}
	}
	hasAttrs(t, "invoke_agent", attrs(r.span(t, "invoke_agent agent").Attributes), map[string]any{"agent.stop_reason": "error"})
}

func TestACompactionIsACompactSpanWithItsChat(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	l := newLoop(t, fake.New(fake.Text("hello"), fake.Text("Goal: greet.").WithUsage(40, 4)),
		r.tel.Session(context.Background(), telemetry.Session{Frontend: "tui", Provider: "anthropic"}))
	conv := conversation.New("", session{"sess-2"})
	run(l, conv, "hi")
	if d := compact(l, conv); d.Reason != loop.StopAnswered {
		t.Fatalf("compaction: %+v", d)
	}
	r.finish(t)
	c := r.span(t, "compact")
	hasAttrs(t, c.Name, attrs(c.Attributes), map[string]any{"agent.compaction": true, "gen_ai.conversation.id": "sess-2"})
	chats := spansNamed(r, "chat m")
	var summary []tracetest.SpanStub
	for _, chat := range chats {
		if v, ok := attrs(chat.Attributes)["agent.compaction"]; ok && v.AsBool() {
			summary = append(summary, chat)
		}
	}
	if len(chats) != 2 || len(summary) != 1 {
		t.Fatalf("%d chat spans, %d of them a compaction's", len(chats), len(summary))
	}
	childOf(t, summary[0], c)
	hasAttrs(t, "the summary's chat", attrs(summary[0].Attributes), map[string]any{"agent.step": int64(0), "gen_ai.usage.input_tokens": int64(40)})
	if n := len(r.recordsOf("agent.prompt")); n != 1 {
		t.Errorf("%d agent.prompt records, want 1: a compaction has no prompt", n)
	}
}
