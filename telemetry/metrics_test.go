package telemetry_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

// metricNamed returns the metric called name, and whether there is one.
func (r *rig) metricNamed(name string) (metricdata.Metrics, bool) {
	for _, sm := range r.metrics.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// points returns the data points of a metric (nil when it has none), as
// values by their attributes: a sum's value, a histogram's sum and count.
type point struct {
	attrs map[attribute.Key]attribute.Value
	value float64
	count uint64
}

func (r *rig) points(t *testing.T, name string) []point {
	t.Helper()
	m, ok := r.metricNamed(name)
	if !ok {
		return nil
	}
	var out []point
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs(p.Attributes.ToSlice()), float64(p.Value), 0})
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs(p.Attributes.ToSlice()), p.Value, 0})
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs(p.Attributes.ToSlice()), float64(p.Sum), p.Count})
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs(p.Attributes.ToSlice()), p.Sum, p.Count})
		}
	default:
		t.Fatalf("%s is a %T", name, m.Data)
	}
	return out
}

// pointWith returns the one point of name whose attributes include key=value.
func (r *rig) pointWith(t *testing.T, name string, match map[string]string) point {
	t.Helper()
	var found []point
	for _, p := range r.points(t, name) {
		ok := true
		for k, v := range match {
			ok = ok && p.attrs[attribute.Key(k)].String() == v
		}
		if ok {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d points with %v among %+v", name, len(found), match, r.points(t, name))
	}
	return found[0]
}

// price is 2 dollars a million input tokens, 10 a million output tokens,
// for the model m only.
func price(model string) (providers.Price, bool) {
	if model != "m" {
		return providers.Price{}, false
	}
	return providers.Price{Input: 2, Output: 10, CacheRead: 0.2, CacheWrite: 2.5}, true
}

func TestMetricsOfATurn(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{Pricer: price})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "anthropic"})
	replies := toolTurn()
	run(newLoop(t, fake.New(replies...), tr), conversation.New("", nil), "go")
	r.finish(t)

	for _, tc := range []struct {
		tokenType string
		sum       float64
	}{{"input", 250}, {"output", 25}} {
		p := r.pointWith(t, "gen_ai.client.token.usage", map[string]string{"gen_ai.token.type": tc.tokenType})
		if p.value != tc.sum || p.count != 2 {
			t.Errorf("%s tokens: sum %v of %d requests, want %v of 2", tc.tokenType, p.value, p.count, tc.sum)
		}
		hasAttrs(t, "token usage", p.attrs, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
			"gen_ai.request.model": "m", "gen_ai.response.model": "m", "agent.frontend": "headless"})
	}
	m, _ := r.metricNamed("gen_ai.client.token.usage")
	if _, ok := m.Data.(metricdata.Histogram[int64]); !ok {
		t.Errorf("gen_ai.client.token.usage is a %T, want a histogram", m.Data)
	}

	d := r.pointWith(t, "gen_ai.client.operation.duration", map[string]string{"gen_ai.operation.name": "chat"})
	if d.count != 2 || d.value < 0 {
		t.Errorf("duration: %d requests, %v s", d.count, d.value)
	}
	if _, failed := d.attrs["error.type"]; failed {
		t.Errorf("duration of requests that succeeded has error.type")
	}

	want := price0(replies[0].Usage) + price0(replies[1].Usage)
	cost := r.pointWith(t, "agent.cost.usage", map[string]string{"gen_ai.request.model": "m"})
	if math.Abs(cost.value-want) > 1e-12 || want == 0 {
		t.Errorf("cost %v USD, want %v", cost.value, want)
	}

	for _, c := range []struct{ tool, decision string }{{"echo", "allowed"}, {"rm", "denied"}} {
		p := r.pointWith(t, "agent.tool.calls", map[string]string{"gen_ai.tool.name": c.tool})
		if p.value != 1 || p.attrs["agent.tool.decision"].String() != c.decision {
			t.Errorf("%s: %v calls %s, want 1 %s", c.tool, p.value, p.attrs["agent.tool.decision"].String(), c.decision)
		}
	}

	if s := r.pointWith(t, "agent.sessions", map[string]string{"agent.frontend": "headless"}); s.value != 1 {
		t.Errorf("%v sessions", s.value)
	}
}

func price0(u providers.Usage) float64 {
	p, _ := price("m")
	return p.Cost(u)
}

func TestSessionsAreCountedByFrontend(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	for _, f := range []string{"tui", "acp", "acp"} {
		r.tel.Session(context.Background(), telemetry.Session{Frontend: f, Provider: "openai"})
	}
	r.finish(t)
	for f, want := range map[string]float64{"tui": 1, "acp": 2} {
		if p := r.pointWith(t, "agent.sessions", map[string]string{"agent.frontend": f}); p.value != want {
			t.Errorf("%s: %v sessions, want %v", f, p.value, want)
		}
	}
}

func TestNoCostWithoutAPrice(t *testing.T) {
	for name, pricer := range map[string]providers.Pricer{"no pricer": nil, "an unpriced model": price} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, telemetry.Settings{}, telemetry.Options{Pricer: pricer})
			tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
			l := newLoop(t, fake.New(fake.Text("hi").WithUsage(10, 2)), tr).WithModel("unpriced")
			run(l, conversation.New("", nil), "go")
			r.finish(t)
			if ps := r.points(t, "agent.cost.usage"); len(ps) != 0 {
				t.Errorf("cost of an unpriced model: %+v", ps)
			}
			if p := r.pointWith(t, "gen_ai.client.token.usage", map[string]string{"gen_ai.token.type": "input"}); p.value != 10 {
				t.Errorf("the tokens are still counted: %v", p.value)
			}
		})
	}
}

func TestAFailedRequestsDurationHasItsErrorType(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	run(newLoop(t, fake.New(fake.Error(errors.New("boom"))), tr), conversation.New("", nil), "go")
	r.finish(t)
	p := r.pointWith(t, "gen_ai.client.operation.duration", map[string]string{"gen_ai.operation.name": "chat"})
	if p.attrs["error.type"].String() == "" {
		t.Errorf("a failed request's duration has no error.type: %v", p.attrs)
	}
}
