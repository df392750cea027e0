package telemetry

import (
	lognoop "go.opentelemetry.io/otel/log/noop"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// The providers of the signals that are off.
var (
	noopTracerProvider = tracenoop.NewTracerProvider()
	noopMeterProvider  = metricnoop.NewMeterProvider()
	noopLoggerProvider = lognoop.NewLoggerProvider()
)
