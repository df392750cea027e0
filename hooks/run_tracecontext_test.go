package hooks

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// A hook run inside a span (telemetry's execute_hook) sees that span as
// its TRACEPARENT, in place of one the agent inherited; without a span it
// sees the inherited one, unchanged.
func TestAHookSeesTheTraceparentOfItsSpan(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	span := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	inherited := "TRACEPARENT=00-11111111111111111111111111111111-2222222222222222-01"
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"in a span", span, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"without one", context.Background(), strings.TrimPrefix(inherited, "TRACEPARENT=")},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			r := &Runner{Hooks: []Hook{{Event: Notification, Source: "test", Command: `printf %s "$TRACEPARENT"`}},
				Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH"), inherited}}
			res := r.Run(tc.ctx, "", Input{HookEventName: Notification})
			if len(res) != 1 || res[0].Exit != 0 {
				t.Fatalf("results = %+v", res)
			}
			if res[0].Stdout != tc.want {
				t.Errorf("the hook saw TRACEPARENT %q, want %q", res[0].Stdout, tc.want)
			}
		})
	}
}
