package telemetry_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools"
)

// A subagent's description is the model's words: content, left out
// without capture.
func TestASubagentsDescriptionIsContent(t *testing.T) {
	for _, capture := range []bool{false, true} {
		r := newRig(t, telemetry.Settings{CaptureContent: capture}, telemetry.Options{})
		tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
		_, end := tr.Turn(context.Background(), loop.TraceTurn{Session: "s", Model: "m", Origin: loop.Origin{ParentCallID: "c1", Label: "look for the launch codes"}})
		end(loop.Done{Reason: loop.StopAnswered})
		r.finish(t)
		if got := strings.Contains(r.everything(), "launch codes"); got != capture {
			t.Errorf("capture %v: the description exported = %v", capture, got)
		}
	}
}

// Text that is not UTF-8 (a tool's binary output), or that the 32 KiB cut
// would split inside a character, is exported as UTF-8: OTLP refuses a
// whole batch for one string that is not.
func TestCapturedContentIsAlwaysUTF8(t *testing.T) {
	r := newRig(t, telemetry.Settings{CaptureContent: true}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	ctx, end := tr.Turn(context.Background(), loop.TraceTurn{Session: "s", Model: "m"})
	_, callEnd := tr.ToolCall(ctx, loop.TraceCall{Session: "s", Known: true, Call: providers.ToolCall{ID: "c1", Name: "read_file", Arguments: "{}"}})
	long := strings.Repeat("a", 32<<10-1) + "é and more" // the cut falls inside é
	callEnd(loop.TraceCallEnd{Result: tools.Result{Content: "\xff\xfebinary" + long}})
	end(loop.Done{Reason: loop.StopAnswered})
	r.finish(t)
	for _, s := range r.spans.GetSpans() {
		for _, a := range s.Attributes {
			if v := a.Value.String(); !utf8.ValidString(v) {
				t.Errorf("span %s: %s is not UTF-8", s.Name, a.Key)
			}
		}
	}
}

// A call of a tool that does not exist is counted and named as unknown,
// so a model's inventions do not become metrics' attributes or span names.
func TestAnUnknownToolIsNamedUnknown(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	ctx, end := tr.Turn(context.Background(), loop.TraceTurn{Session: "s", Model: "m"})
	_, callEnd := tr.ToolCall(ctx, loop.TraceCall{Session: "s", Known: false, Call: providers.ToolCall{ID: "c1", Name: "made_up_tool_93841"}})
	callEnd(loop.TraceCallEnd{Result: tools.Result{Content: "no such tool", IsError: true}})
	end(loop.Done{Reason: loop.StopAnswered})
	r.finish(t)
	names := map[string]bool{}
	for _, n := range r.spanNames() {
		names[n] = true
	}
	if !names["execute_tool _unknown"] || names["execute_tool made_up_tool_93841"] {
		t.Errorf("spans %v: want execute_tool _unknown", names)
	}
	for _, sm := range r.metrics.ScopeMetrics {
		for _, m := range sm.Metrics {
			if strings.Contains(fmt.Sprintf("%+v", m.Data), "made_up_tool_93841") {
				t.Errorf("metric %s carries the made-up name", m.Name)
			}
		}
	}
}
