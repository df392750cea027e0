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

// spanExporter is the traces' OTLP exporter for e.
func spanExporter(ctx context.Context, e Exporter) (sdktrace.SpanExporter, error) {
	if e.Protocol == ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if e.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(e.Endpoint))
		}
		if e.Headers != nil {
			opts = append(opts, otlptracegrpc.WithHeaders(e.Headers))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if e.Endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(httpURL(e.Endpoint, "traces")))
	}
	if e.Headers != nil {
		opts = append(opts, otlptracehttp.WithHeaders(e.Headers))
	}
	return otlptracehttp.New(ctx, opts...)
}

// metricExporter is the metrics' OTLP exporter for e.
func metricExporter(ctx context.Context, e Exporter) (sdkmetric.Exporter, error) {
	if e.Protocol == ProtocolGRPC {
		var opts []otlpmetricgrpc.Option
		if e.Endpoint != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(e.Endpoint))
		}
		if e.Headers != nil {
			opts = append(opts, otlpmetricgrpc.WithHeaders(e.Headers))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	var opts []otlpmetrichttp.Option
	if e.Endpoint != "" {
		opts = append(opts, otlpmetrichttp.WithEndpointURL(httpURL(e.Endpoint, "metrics")))
	}
	if e.Headers != nil {
		opts = append(opts, otlpmetrichttp.WithHeaders(e.Headers))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// logExporter is the logs' OTLP exporter for e.
func logExporter(ctx context.Context, e Exporter) (sdklog.Exporter, error) {
	if e.Protocol == ProtocolGRPC {
		var opts []otlploggrpc.Option
		if e.Endpoint != "" {
			opts = append(opts, otlploggrpc.WithEndpointURL(e.Endpoint))
		}
		if e.Headers != nil {
			opts = append(opts, otlploggrpc.WithHeaders(e.Headers))
		}
		return otlploggrpc.New(ctx, opts...)
	}
	var opts []otlploghttp.Option
	if e.Endpoint != "" {
		opts = append(opts, otlploghttp.WithEndpointURL(httpURL(e.Endpoint, "logs")))
	}
	if e.Headers != nil {
		opts = append(opts, otlploghttp.WithHeaders(e.Headers))
	}
	return otlploghttp.New(ctx, opts...)
}
