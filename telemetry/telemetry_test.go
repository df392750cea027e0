package telemetry_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
)

func TestATurnJoinsTheEnvironmentsTraceparent(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{Getenv: env{"TRACEPARENT": "00-" + parentTrace + "-" + parentSpan + "-01"}.get})
	ctx := r.tel.Context(context.Background())
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsRemote() || sc.TraceID().String() != parentTrace || sc.SpanID().String() != parentSpan {
		t.Errorf("Context's span context %v, want the remote parent of TRACEPARENT", sc)
	}

	run(newLoop(t, fake.New(fake.Text("hi")), r.tel.Session(ctx, telemetry.Session{Frontend: "headless", Provider: "openai"})),
		conversation.New("", nil), "go")
	r.finish(t)
	turn := r.span(t, "invoke_agent agent")
	if !turn.Parent.IsRemote() || turn.Parent.TraceID().String() != parentTrace || turn.Parent.SpanID().String() != parentSpan {
		t.Errorf("the turn's parent is %v, want TRACEPARENT's", turn.Parent)
	}
	if turn.SpanContext.TraceID().String() != parentTrace {
		t.Errorf("the turn is in trace %v", turn.SpanContext.TraceID())
	}
}

func TestContextKeepsASpanOfItsOwn(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{Getenv: env{"TRACEPARENT": "00-" + parentTrace + "-" + parentSpan + "-01"}.get})
	defer r.finish(t)
	own := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), own)
	if got := trace.SpanContextFromContext(r.tel.Context(ctx)); !got.Equal(own) {
		t.Errorf("Context replaced the context's span %v with %v", own, got)
	}
}

func TestWithoutTraceparentContextIsUnchanged(t *testing.T) {
	for name, e := range map[string]env{"none": {}, "malformed": {"TRACEPARENT": "00-nonsense-01"}} {
		r := newRig(t, telemetry.Settings{}, telemetry.Options{Getenv: e.get})
		if sc := trace.SpanContextFromContext(r.tel.Context(context.Background())); sc.IsValid() {
			t.Errorf("%s: Context has a span context %v", name, sc)
		}
		r.finish(t)
	}
}

func TestANilTelemetryIsOff(t *testing.T) {
	var tel *telemetry.Telemetry
	if tr := tel.Session(context.Background(), telemetry.Session{Frontend: "tui"}); tr != nil {
		t.Errorf("Session = %#v, want a nil loop.Tracer", tr)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	ctx := context.Background()
	if got := tel.Context(ctx); got != ctx {
		t.Errorf("Context changed the context")
	}
	got, end := tel.Hook(ctx, "PreToolUse", 1)
	if got != ctx {
		t.Errorf("Hook changed the context")
	}
	end(1)
}

func TestHooksAreSpans(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	ctx, end := r.tel.Hook(context.Background(), "PreToolUse", 2)
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Errorf("the hooks' context has no span: their commands get no TRACEPARENT")
	}
	end(1)
	_, end = r.tel.Hook(context.Background(), "Stop", 1)
	end(0)
	r.finish(t)
	failed := r.span(t, "execute_hook PreToolUse")
	hasAttrs(t, failed.Name, attrs(failed.Attributes), map[string]any{"agent.hook.event": "PreToolUse", "agent.hook.commands": int64(2), "agent.hook.failed": int64(1)})
	if failed.Status.Code != codes.Error {
		t.Errorf("a failed hook's status %v", failed.Status)
	}
	if ok := r.span(t, "execute_hook Stop"); ok.Status.Code != codes.Unset {
		t.Errorf("a hook that succeeded has status %v", ok.Status)
	}
}

// stuck is a span exporter whose export hangs until its context is done
// or the test ends; it says when an export starts.
type stuck struct {
	started chan struct{}
	once    sync.Once
	release chan struct{}
}

func (s *stuck) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	s.once.Do(func() { close(s.started) })
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.release:
		return nil // after the test: nothing for the next test's Warn to hear
	}
}

func (s *stuck) Shutdown(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.release:
		return nil
	}
}

func TestShutdownGivesUpOnAStuckCollectorWithOneWarning(t *testing.T) {
	exp := &stuck{started: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(exp.release) })
	var mu sync.Mutex
	var warnings []string
	tel, err := telemetry.Setup(context.Background(), telemetry.Settings{}, telemetry.Options{
		Getenv:       env{}.get,
		SpanExporter: exp,
		Warn: func(w string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, w)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, end := tel.Hook(context.Background(), "Stop", 1)
	end(0)

	start := time.Now()
	if err := tel.Shutdown(context.Background()); err == nil {
		t.Errorf("Shutdown = nil over a collector that did not answer")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Shutdown took %v; ShutdownWait is %v", took, telemetry.ShutdownWait)
	}
	select {
	case <-exp.started:
	case <-time.After(10 * time.Second):
		t.Errorf("no export started")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 {
		t.Errorf("%d warnings, want 1: %q", len(warnings), warnings)
	}
}

func TestShutdownOfAHealthyCollectorIsQuiet(t *testing.T) {
	var mu sync.Mutex
	var warnings []string
	r := newRig(t, telemetry.Settings{}, telemetry.Options{Warn: func(w string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, w)
	}})
	_, end := r.tel.Hook(context.Background(), "Stop", 1)
	end(0)
	r.finish(t) // fails on an error
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
}
