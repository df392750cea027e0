package telemetry

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The exporters below are the OTLP exporters of the official Go SDK. Each
// reads the standard environment variables itself (endpoint, headers,
// timeout, certificates, compression); the options given here are only
// the config file's, for what the environment does not say. None connects
// before its first export.

// httpURL is the URL of a signal's OTLP/HTTP path under base, as the
// specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT.
func httpURL(base, signal string) string {
	return strings.TrimRight(base, "/") + "/v1/" + signal
}

// options are the config file's endpoint and headers as an exporter's
// options: endpointURL and headers are that package's WithEndpointURL and
// WithHeaders; signal names the OTLP/HTTP path the endpoint gets
// ("traces" is /v1/traces), "" for gRPC, whose endpoint is used as it is.
func options[O any](e Exporter, signal string, endpointURL func(string) O, headers func(map[string]string) O) []O {
	var opts []O
	if e.Endpoint != "" {
		u := e.Endpoint
		if signal != "" {
			u = httpURL(u, signal)
		}
		opts = append(opts, endpointURL(u))
	}
	if e.Headers != nil {
		opts = append(opts, headers(e.Headers))
	}
	return opts
}

// spanExporter is the traces' OTLP exporter for e.
func spanExporter(ctx context.Context, e Exporter) (sdktrace.SpanExporter, error) {
	if e.Protocol == ProtocolGRPC {
		return otlptracegrpc.New(ctx, options(e, "", otlptracegrpc.WithEndpointURL, otlptracegrpc.WithHeaders)...)
	}
	return otlptracehttp.New(ctx, options(e, "traces", otlptracehttp.WithEndpointURL, otlptracehttp.WithHeaders)...)
}

// metricExporter is the metrics' OTLP exporter for e.
func metricExporter(ctx context.Context, e Exporter) (sdkmetric.Exporter, error) {
	if e.Protocol == ProtocolGRPC {
		return otlpmetricgrpc.New(ctx, options(e, "", otlpmetricgrpc.WithEndpointURL, otlpmetricgrpc.WithHeaders)...)
	}
	return otlpmetrichttp.New(ctx, options(e, "metrics", otlpmetrichttp.WithEndpointURL, otlpmetrichttp.WithHeaders)...)
}

// logExporter is the logs' OTLP exporter for e.
func logExporter(ctx context.Context, e Exporter) (sdklog.Exporter, error) {
	if e.Protocol == ProtocolGRPC {
		return otlploggrpc.New(ctx, options(e, "", otlploggrpc.WithEndpointURL, otlploggrpc.WithHeaders)...)
	}
	return otlploghttp.New(ctx, options(e, "logs", otlploghttp.WithEndpointURL, otlploghttp.WithHeaders)...)
}
