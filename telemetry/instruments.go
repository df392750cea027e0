package telemetry

import (
	"fmt"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// instruments are the metrics' instruments: the GenAI conventions' client
// metrics and the agent's own.
type instruments struct {
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
	// cost is agent.cost.usage: what the model requests cost, in US
	// dollars, by the one pricing path (providers.Spend).
	cost metric.Float64Counter
	// toolCalls is agent.tool.calls, by gen_ai.tool.name and
	// agent.tool.decision.
	toolCalls metric.Int64Counter
	// sessions is agent.sessions: sessions opened, by front-end.
	sessions metric.Int64Counter
}

// Names of the agent's own metrics (the GenAI ones are genaiconv's).
const (
	MetricCost      = "agent.cost.usage"
	MetricToolCalls = "agent.tool.calls"
	MetricSessions  = "agent.sessions"
)

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var err error
	if in.tokens, err = genaiconv.NewClientTokenUsage(m); err != nil {
		return in, fmt.Errorf("telemetry: %w", err)
	}
	if in.duration, err = genaiconv.NewClientOperationDuration(m); err != nil {
		return in, fmt.Errorf("telemetry: %w", err)
	}
	if in.cost, err = m.Float64Counter(MetricCost, metric.WithUnit("USD"),
		metric.WithDescription("What the model requests cost, each model at its price")); err != nil {
		return in, fmt.Errorf("telemetry: %w", err)
	}
	if in.toolCalls, err = m.Int64Counter(MetricToolCalls, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by tool and decision")); err != nil {
		return in, fmt.Errorf("telemetry: %w", err)
	}
	if in.sessions, err = m.Int64Counter(MetricSessions, metric.WithUnit("{session}"),
		metric.WithDescription("Sessions opened, by front-end")); err != nil {
		return in, fmt.Errorf("telemetry: %w", err)
	}
	return in, nil
}
