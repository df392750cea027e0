package telemetry_test

import (
	"context"
	"errors"
	"testing"

	otellog "go.opentelemetry.io/otel/log"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

func TestARecordPerPromptRequestAndDecision(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	run(newLoop(t, fake.New(toolTurn()...), tr), conversation.New("", session{"sess-1"}), "go")
	r.finish(t)

	for event, n := range map[string]int{"agent.prompt": 1, "gen_ai.client.inference.operation.details": 2, "agent.tool.decision": 2, "agent.error": 0} {
		if got := len(r.recordsOf(event)); got != n {
			t.Errorf("%d %s records, want %d", got, event, n)
		}
	}
	turn := r.span(t, "invoke_agent agent")
	prompt := r.recordsOf("agent.prompt")[0]
	if prompt.TraceID() != turn.SpanContext.TraceID() || prompt.SpanID() != turn.SpanContext.SpanID() {
		t.Errorf("the prompt's record is not in its turn's span")
	}
	hasAttrs(t, "agent.prompt", recordAttrs(prompt), map[string]any{
		"gen_ai.conversation.id": "sess-1", "gen_ai.request.model": "m", "gen_ai.provider.name": "openai", "agent.frontend": "headless",
	})

	details := r.recordsOf("gen_ai.client.inference.operation.details")
	hasAttrs(t, "the first request's record", recordAttrs(details[0]), map[string]any{
		"gen_ai.response.model": "m", "gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.response.finish_reasons": "tool_calls",
	})
	if details[0].Severity() != otellog.SeverityInfo {
		t.Errorf("a request's severity %v", details[0].Severity())
	}

	byTool := map[string]map[string]any{
		"echo": {"gen_ai.tool.call.id": "call-1", "agent.tool.decision": "allowed", "agent.tool.decided_by": "yolo"},
		"rm":   {"gen_ai.tool.call.id": "call-2", "agent.tool.decision": "denied", "agent.tool.decided_by": `denied by rule "rm"`},
	}
	for _, rec := range r.recordsOf("agent.tool.decision") {
		a := recordAttrs(rec)
		tool := a["gen_ai.tool.name"].AsString()
		want, ok := byTool[tool]
		if !ok {
			t.Errorf("a decision record of tool %q", tool)
			continue
		}
		delete(byTool, tool)
		hasAttrs(t, "decision of "+tool, a, want)
	}
	if len(byTool) > 0 {
		t.Errorf("no decision records of %v", byTool)
	}
}

func TestAFailedTurnHasAnErrorRecord(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	run(newLoop(t, fake.New(fake.Error(errors.New("the server said 500"))), tr), conversation.New("", nil), "go")
	r.finish(t)

	errs := r.recordsOf("agent.error")
	if len(errs) != 1 {
		t.Fatalf("%d agent.error records", len(errs))
	}
	if errs[0].Severity() != otellog.SeverityError || errs[0].Body().AsString() != "the server said 500" {
		t.Errorf("agent.error: severity %v, body %q", errs[0].Severity(), errs[0].Body().String())
	}
	hasAttrs(t, "agent.error", recordAttrs(errs[0]), map[string]any{"agent.stop_reason": "error"})
	details := r.recordsOf("gen_ai.client.inference.operation.details")
	if len(details) != 1 || details[0].Severity() != otellog.SeverityError {
		t.Fatalf("the failed request's records: %d", len(details))
	}
	hasAttrs(t, "the failed request", recordAttrs(details[0]), map[string]any{"error.message": "the server said 500"})
}
