// Package telemetry exports what the agent does as OpenTelemetry traces,
// metrics and log records over OTLP (http/protobuf or gRPC), with the
// official Go SDK, following the OpenTelemetry semantic conventions for
// generative AI, version 1.41.0 (go.opentelemetry.io/otel/semconv/v1.41.0;
// the GenAI conventions are at "Development" stability there). It is off
// unless an endpoint is configured (Resolve), and then costs nothing: no
// exporter, no provider, loop.Config.Trace nil.
//
// Spans: invoke_agent per turn (a subagent's nested under its task call),
// chat {model} per model request, execute_tool {tool} per tool call,
// execute_hook {event} per hook; a retry is an event on its request's
// span. Metrics: gen_ai.client.token.usage, gen_ai.client.operation.duration,
// agent.cost.usage (US dollars), agent.tool.calls, agent.sessions. Log
// records: a prompt, a model request, a tool decision, an error. Export is
// batched in the background; Shutdown flushes for at most a bound and a
// collector that is down, hangs or refuses is one warning.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/telemetry/tracecontext"
	"github.com/agent-dev/agent/tools/shell"
)

// ShutdownWait is the most Shutdown waits for the last export: after it
// the process goes on (and ends) whether or not the collector answered.
const ShutdownWait = time.Second

// scope is the instrumentation scope of every span, instrument and record.
const scope = "github.com/agent-dev/agent"

// Options are what Setup needs beside the settings.
type Options struct {
	// Getenv reads the environment (TRACEPARENT, OTEL_SERVICE_NAME...).
	Getenv func(string) string
	// Version is the agent's version (service.version).
	Version string
	// Warn hears the one warning of a failed export (nil: none).
	Warn func(string)
	// Pricer prices a model's usage for agent.cost.usage (nil: no cost).
	Pricer providers.Pricer
	// SpanExporter, MetricReader and LogExporter, when not nil, replace
	// the OTLP exporters of Settings.Signals (tests: the SDK's in-memory
	// ones); each given turns its signal on.
	SpanExporter sdktrace.SpanExporter
	MetricReader sdkmetric.Reader
	LogExporter  sdklog.Exporter
}

// Telemetry is a process's telemetry. A nil *Telemetry is telemetry off:
// every method is safe on it and does nothing.
type Telemetry struct {
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	lp      *sdklog.LoggerProvider
	tracer  trace.Tracer
	logger  otellog.Logger
	inst    instruments
	capture bool
	pricer  providers.Pricer
	// parent is the remote span context of the environment's TRACEPARENT
	// (invalid when none): every turn that has no span of its own joins it.
	parent trace.SpanContext
	warn   *warnOnce
}

// Setup starts the exporters s configures (or opts' own), nil when none:
// telemetry is off. The providers are the process's: Setup also makes them
// OpenTelemetry's global ones and routes the SDK's errors to opts.Warn,
// once. Errors are the exporters' configuration errors (a malformed
// endpoint URL in the environment); opts.Warn hears them too, as the one
// warning.
func Setup(ctx context.Context, s Settings, opts Options) (_ *Telemetry, err error) {
	_, tracesOn := s.Signals["traces"]
	_, metricsOn := s.Signals["metrics"]
	_, logsOn := s.Signals["logs"]
	tracesOn = tracesOn || opts.SpanExporter != nil
	metricsOn = metricsOn || opts.MetricReader != nil
	logsOn = logsOn || opts.LogExporter != nil
	if !tracesOn && !metricsOn && !logsOn {
		return nil, nil
	}
	t := &Telemetry{capture: s.CaptureContent, pricer: opts.Pricer, warn: &warnOnce{warn: opts.Warn, secrets: headerValues(opts.Getenv)}}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.warn.handle))
	// The SDK's own logger writes to stderr (raw lines in the interface,
	// a header's value in a CI log): what matters reaches the error
	// handler, the one warning.
	otel.SetLogger(logr.Discard())
	defer func() {
		if err != nil { // the one warning, as a failed export would be
			t.warn.handle(err)
		}
	}()
	res, err := newResource(ctx, s, opts.Version)
	if err != nil {
		return nil, err
	}
	if tracesOn {
		exp := opts.SpanExporter
		if exp == nil {
			if exp, err = spanExporter(ctx, s.Signals["traces"]); err != nil {
				return nil, fmt.Errorf("telemetry: traces: %w", err)
			}
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		otel.SetTracerProvider(t.tp)
	}
	if metricsOn {
		reader := opts.MetricReader
		if reader == nil {
			exp, err := metricExporter(ctx, s.Signals["metrics"])
			if err != nil {
				return nil, errors.Join(fmt.Errorf("telemetry: metrics: %w", err), t.Shutdown(ctx))
			}
			reader = sdkmetric.NewPeriodicReader(exp)
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
		otel.SetMeterProvider(t.mp)
	}
	if logsOn {
		exp := opts.LogExporter
		if exp == nil {
			if exp, err = logExporter(ctx, s.Signals["logs"]); err != nil {
				return nil, errors.Join(fmt.Errorf("telemetry: logs: %w", err), t.Shutdown(ctx))
			}
		}
		t.lp = sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(exp, logQueue(opts.Getenv)...)), sdklog.WithResource(res))
	}
	t.tracer = t.tracerProvider().Tracer(scope, trace.WithSchemaURL(semconv.SchemaURL))
	t.logger = t.loggerProvider().Logger(scope, otellog.WithSchemaURL(semconv.SchemaURL))
	if t.inst, err = newInstruments(t.meterProvider().Meter(scope, metric.WithSchemaURL(semconv.SchemaURL))); err != nil {
		return nil, errors.Join(err, t.Shutdown(ctx))
	}
	t.parent = trace.SpanContextFromContext(tracecontext.FromEnv(context.Background(), opts.Getenv))
	return t, nil
}

// logQueueSize is the log records' queue when OTEL_BLRP_MAX_QUEUE_SIZE
// does not say: a run emits a few records a turn, and the SDK's default
// (2048) costs about a millisecond to allocate at every start. Past it the
// oldest records are dropped; an export starts at half of it.
const logQueueSize = 256

// logQueue are the batch processor's options for the records' queue.
func logQueue(getenv func(string) string) []sdklog.BatchProcessorOption {
	if getenv != nil && (getenv("OTEL_BLRP_MAX_QUEUE_SIZE") != "" || getenv("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE") != "") {
		return nil
	}
	return []sdklog.BatchProcessorOption{sdklog.WithMaxQueueSize(logQueueSize), sdklog.WithExportMaxBatchSize(logQueueSize / 2)}
}

// newResource is the resource every signal carries: service.name (the
// settings', under OTEL_SERVICE_NAME), service.version, the config's
// attributes and OTEL_RESOURCE_ATTRIBUTES over them.
func newResource(ctx context.Context, s Settings, version string) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{semconv.ServiceName(s.ServiceName), semconv.ServiceVersion(version)}
	for k, v := range s.Resource {
		attrs = append(attrs, attribute.String(k, v))
	}
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil // a partial resource (a malformed OTEL_RESOURCE_ATTRIBUTES entry) is still used
}

// Shutdown exports what is buffered and stops the exporters, waiting at
// most ShutdownWait (or until ctx is done); a collector that did not
// answer by then is the one warning, and what it did not take is lost.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownWait)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	if t.tp != nil {
		wg.Go(func() { errs[0] = t.tp.Shutdown(ctx) })
	}
	if t.mp != nil {
		wg.Go(func() { errs[1] = t.mp.Shutdown(ctx) })
	}
	if t.lp != nil {
		wg.Go(func() { errs[2] = t.lp.Shutdown(ctx) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
		err = errors.Join(errs...) // errs is theirs until they are done
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("the collector did not take the last telemetry within %v", ShutdownWait)
	}
	if err != nil {
		t.warn.handle(err)
	}
	return err
}

// Context returns ctx joined to the environment's TRACEPARENT when ctx
// carries no span of its own (a session's start, before any turn).
func (t *Telemetry) Context(ctx context.Context) context.Context {
	if t == nil || !t.parent.IsValid() || trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, t.parent)
}

// tracerProvider, meterProvider and loggerProvider are the providers of
// the signals that are on, no-op ones for the others.
func (t *Telemetry) tracerProvider() trace.TracerProvider {
	if t.tp == nil {
		return noopTracerProvider
	}
	return t.tp
}

func (t *Telemetry) meterProvider() metric.MeterProvider {
	if t.mp == nil {
		return noopMeterProvider
	}
	return t.mp
}

func (t *Telemetry) loggerProvider() otellog.LoggerProvider {
	if t.lp == nil {
		return noopLoggerProvider
	}
	return t.lp
}

// warnOnce passes the first error it hears on as the one warning, with
// the OTLP headers' values (a collector's credentials) and
// credential-looking values masked.
type warnOnce struct {
	once    sync.Once
	warn    func(string)
	secrets []string
}

func (w *warnOnce) handle(err error) {
	w.once.Do(func() {
		if w.warn == nil {
			return
		}
		msg := err.Error()
		for _, s := range w.secrets {
			msg = strings.ReplaceAll(msg, s, "[secret masked]")
		}
		msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ") // one line
		w.warn(fmt.Sprintf("telemetry: %s (later telemetry errors are not reported; the run is not affected)", shell.MaskSecrets(msg)))
	})
}

// headerValues are the values of the OTLP headers the environment sets
// (OTEL_EXPORTER_OTLP_HEADERS and the signals' own), whole and pair by
// pair, longest first: what an error must never print.
func headerValues(getenv func(string) string) []string {
	if getenv == nil {
		return nil
	}
	var out []string
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		out = append(out, v)
		for _, pair := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(pair))
			if _, value, ok := strings.Cut(pair, "="); ok {
				out = append(out, strings.TrimSpace(value))
			}
			if _, value, ok := strings.Cut(pair, ":"); ok {
				out = append(out, strings.TrimSpace(value))
			}
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return len(s) < 4 })
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
