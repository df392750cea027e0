// Package tracecontext carries W3C Trace Context (https://www.w3.org/TR/trace-context/)
// in and out of the agent: from the TRACEPARENT and TRACESTATE environment
// variables a CI job or a workflow sets, into the environment of the
// commands, hooks and MCP servers the agent starts, and into the
// traceparent header of its HTTP requests. It depends on OpenTelemetry's
// API only, so the packages that start processes or send requests use it
// at no cost when telemetry is off: without a span in the context nothing
// is added.
package tracecontext

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables that carry the context, as the
// OpenTelemetry specification's environment carrier names them.
const (
	EnvParent = "TRACEPARENT"
	EnvState  = "TRACESTATE"
)

var w3c = propagation.TraceContext{}

// FromEnv returns ctx joined, as a remote parent, to the trace that
// TRACEPARENT (and TRACESTATE) in getenv name; ctx itself when they name
// none or are malformed.
func FromEnv(ctx context.Context, getenv func(string) string) context.Context {
	parent := getenv(EnvParent)
	if parent == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": parent}
	if state := getenv(EnvState); state != "" {
		carrier["tracestate"] = state
	}
	return w3c.Extract(ctx, carrier)
}

// Env returns ctx's span as TRACEPARENT (and TRACESTATE) entries for a
// process's environment ("TRACEPARENT=00-..."), nil when ctx has no valid
// span context.
func Env(ctx context.Context) []string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	w3c.Inject(ctx, carrier)
	var env []string
	if p := carrier["traceparent"]; p != "" {
		env = append(env, EnvParent+"="+p)
	}
	if s := carrier["tracestate"]; s != "" {
		env = append(env, EnvState+"="+s)
	}
	return env
}

// WithEnv returns env with ctx's TRACEPARENT and TRACESTATE in place of
// any it had; env's entries when ctx has no span. env is never modified,
// nor written by an append to what WithEnv returns (its capacity is its
// length).
func WithEnv(env []string, ctx context.Context) []string {
	add := Env(ctx)
	if add == nil {
		return slices.Clip(env)
	}
	out := make([]string, 0, len(env)+len(add))
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvParent+"=") && !strings.HasPrefix(kv, EnvState+"=") {
			out = append(out, kv)
		}
	}
	return slices.Clip(append(out, add...)) // replaced entries leave room: clip it
}

// Transport returns base (http.DefaultTransport when nil) with the
// traceparent and tracestate headers of each request's context's span set
// on the request; a request whose context has no span goes as it is.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return transport{base: base}
}

type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !trace.SpanContextFromContext(req.Context()).IsValid() {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // a RoundTripper must not modify the request
	w3c.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	return t.base.RoundTrip(req)
}

// CloseIdleConnections passes on to the base transport, so that a client
// over Transport still closes its idle connections.
func (t transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
