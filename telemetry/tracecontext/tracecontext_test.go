package tracecontext_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/telemetry/tracecontext"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
	parent  = "00-" + traceID + "-" + spanID + "-01"
	state   = "vendor=abc"
)

// withSpan is a context whose span is the one of parent, with state.
func withSpan(t *testing.T) context.Context {
	t.Helper()
	ctx := tracecontext.FromEnv(context.Background(), getenv(map[string]string{tracecontext.EnvParent: parent, tracecontext.EnvState: state}))
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("FromEnv did not join TRACEPARENT")
	}
	return ctx
}

func getenv(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestFromEnv(t *testing.T) {
	sc := trace.SpanContextFromContext(withSpan(t))
	if !sc.IsRemote() || sc.TraceID().String() != traceID || sc.SpanID().String() != spanID || !sc.IsSampled() {
		t.Errorf("span context %v", sc)
	}
	if got := sc.TraceState().String(); got != state {
		t.Errorf("trace state %q, want %q", got, state)
	}
	for name, env := range map[string]map[string]string{
		"none":      {},
		"empty":     {tracecontext.EnvParent: ""},
		"malformed": {tracecontext.EnvParent: "00-xyz-01"},
		"zero ids":  {tracecontext.EnvParent: "00-00000000000000000000000000000000-0000000000000000-01"},
	} {
		ctx := context.Background()
		if got := tracecontext.FromEnv(ctx, getenv(env)); got != ctx {
			t.Errorf("%s: FromEnv changed the context", name)
		}
	}
}

func TestEnv(t *testing.T) {
	if env := tracecontext.Env(context.Background()); env != nil {
		t.Errorf("Env without a span = %q", env)
	}
	want := []string{"TRACEPARENT=" + parent, "TRACESTATE=" + state}
	if env := tracecontext.Env(withSpan(t)); !slices.Equal(env, want) {
		t.Errorf("Env = %q, want %q", env, want)
	}
}

func TestWithEnvReplacesTheInheritedContext(t *testing.T) {
	env := []string{"PATH=/bin", "TRACEPARENT=00-11111111111111111111111111111111-2222222222222222-01", "HOME=/h", "TRACESTATE=old=1"}
	orig := slices.Clone(env)
	got := tracecontext.WithEnv(env, withSpan(t))
	want := []string{"PATH=/bin", "HOME=/h", "TRACEPARENT=" + parent, "TRACESTATE=" + state}
	if !slices.Equal(got, want) {
		t.Errorf("WithEnv = %q, want %q", got, want)
	}
	if !slices.Equal(env, orig) {
		t.Errorf("WithEnv modified its input: %q", env)
	}
}

func TestWithEnvWithoutASpanLeavesTheEnvironment(t *testing.T) {
	env := []string{"PATH=/bin", "TRACEPARENT=" + parent}
	if got := tracecontext.WithEnv(env, context.Background()); !slices.Equal(got, env) {
		t.Errorf("WithEnv = %q, want %q", got, env)
	}
	if got := tracecontext.WithEnv(nil, context.Background()); len(got) != 0 {
		t.Errorf("WithEnv(nil) = %q", got)
	}
}

// TestWithEnvNeverAliases appends to what WithEnv returns, which must
// write neither into its input's spare capacity nor into another append's.
func TestWithEnvNeverAliases(t *testing.T) {
	for name, ctx := range map[string]context.Context{"with a span": withSpan(t), "without": context.Background()} {
		for _, env := range [][]string{
			append(make([]string, 0, 10), "PATH=/bin", "HOME=/h"),
			append(make([]string, 0, 10), "PATH=/bin", "TRACEPARENT=x", "TRACESTATE=y"),
		} {
			out := tracecontext.WithEnv(env, ctx)
			if cap(out) != len(out) {
				t.Errorf("%s: WithEnv(%q) has capacity %d beyond its length %d", name, env, cap(out), len(out))
			}
			a := append(out, "A=1")
			b := append(out, "B=2")
			if a[len(a)-1] != "A=1" || b[len(b)-1] != "B=2" {
				t.Errorf("%s: two appends to WithEnv's result share memory", name)
			}
			if spare := env[len(env):cap(env)]; slices.Contains(spare, "A=1") || slices.Contains(spare, "B=2") {
				t.Errorf("%s: an append to WithEnv's result wrote into its input", name)
			}
		}
	}
}

// recorder is a RoundTripper that keeps the requests it is given.
type recorder struct{ reqs []*http.Request }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.reqs = append(r.reqs, req)
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: req}, nil
}

func TestTransportSetsTraceparentOfTheRequestsSpan(t *testing.T) {
	base := &recorder{}
	client := &http.Client{Transport: tracecontext.Transport(base)}
	req, err := http.NewRequestWithContext(withSpan(t), http.MethodPost, "http://127.0.0.1:1/v1/chat", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Mine", "1")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sent := base.reqs[0]
	if got := sent.Header.Get("traceparent"); got != parent {
		t.Errorf("traceparent %q, want %q", got, parent)
	}
	if got := sent.Header.Get("tracestate"); got != state {
		t.Errorf("tracestate %q, want %q", got, state)
	}
	if sent.Header.Get("X-Mine") != "1" {
		t.Errorf("the request's own headers are lost")
	}
	if req.Header.Get("traceparent") != "" || req.Header.Get("tracestate") != "" {
		t.Errorf("Transport modified the caller's request: %v", req.Header)
	}
}

func TestTransportLeavesARequestWithoutASpan(t *testing.T) {
	base := &recorder{}
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tracecontext.Transport(base).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if base.reqs[0] != req || req.Header.Get("traceparent") != "" {
		t.Errorf("a request without a span was changed: %v", base.reqs[0].Header)
	}
}

func TestTransportClosesIdleConnectionsOfItsBase(t *testing.T) {
	base := &closer{}
	(&http.Client{Transport: tracecontext.Transport(base)}).CloseIdleConnections()
	if !base.closed {
		t.Errorf("CloseIdleConnections did not reach the base transport")
	}
}

type closer struct {
	recorder
	closed bool
}

func (c *closer) CloseIdleConnections() { c.closed = true }
