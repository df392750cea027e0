package telemetry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A run configured by the config file's [telemetry] table alone sends
// traces, metrics and log records over OTLP/HTTP: the metrics the GenAI
// conventions define and the agent's own (cost priced by the profile's
// price), the records of the prompt, the request, the tool decision; the
// resource names the service and the config's attributes; no message
// content without capture.
func TestMetricsAndLogsReachAnOTLPReceiver(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, accept)
	dir, home := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "read_file", Arguments: `{"path":"secret-plans.txt"}`}),
		scripted.Text("the plans are safe"))
	e2e.WriteFile(t, dir, "secret-plans.txt", "launch on tuesday\n")
	config := `[profiles.scripted.price]
input = 3.0
output = 15.0

[telemetry]
endpoint = "` + r.URL() + `"
resource_attributes = { "deployment.environment" = "e2e" }
`
	os.MkdirAll(filepath.Join(home, "config", "agent"), 0o755)
	e2e.WriteFile(t, filepath.Join(home, "config", "agent"), "config.toml", config)
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "AGENT_PROFILE=scripted"},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "tell me the plans")})
	if res.Code != 0 || res.Stdout != "the plans are safe\n" {
		t.Fatalf("exit %d, stdout %q: %s", res.Code, res.Stdout, res.Stderr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.traces) == 0 || len(r.metrics) == 0 || len(r.logs) == 0 {
		t.Fatalf("exports: %d of traces, %d of metrics, %d of logs; want each", len(r.traces), len(r.metrics), len(r.logs))
	}
	res0 := r.metrics[0].ResourceMetrics[0].Resource
	attrs := map[string]string{}
	for _, kv := range res0.Attributes {
		attrs[kv.Key] = kv.Value.GetStringValue()
	}
	if attrs["service.name"] != "agent" || attrs["deployment.environment"] != "e2e" {
		t.Errorf("resource %v: want service.name agent and deployment.environment e2e", attrs)
	}
	metrics := map[string]bool{}
	var cost float64
	for _, rm := range r.metrics {
		for _, sm := range rm.ResourceMetrics {
			for _, s := range sm.ScopeMetrics {
				for _, m := range s.Metrics {
					metrics[m.Name] = true
					if m.Name == "agent.cost.usage" {
						for _, dp := range m.GetSum().GetDataPoints() {
							cost += dp.GetAsDouble()
						}
					}
				}
			}
		}
	}
	for _, name := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "agent.cost.usage", "agent.tool.calls", "agent.sessions"} {
		if !metrics[name] {
			t.Errorf("no metric %s among %v", name, metrics)
		}
	}
	// Two requests of 10 input and 5 output tokens at $3 and $15 per
	// million.
	if want := 2 * (10*3.0 + 5*15.0) / 1e6; cost < want*0.999 || cost > want*1.001 {
		t.Errorf("agent.cost.usage = %g, want %g", cost, want)
	}
	var events []string
	for _, l := range r.logs {
		for _, rl := range l.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, rec := range sl.LogRecords {
					events = append(events, rec.EventName)
					if body := rec.GetBody().GetStringValue(); body != "" {
						t.Errorf("record %s has a body %q without content capture", rec.EventName, body)
					}
				}
			}
		}
	}
	for _, name := range []string{"agent.prompt", "gen_ai.client.inference.operation.details", "agent.tool.decision"} {
		if !slices.Contains(events, name) {
			t.Errorf("no log record %s among %v", name, events)
		}
	}
	for _, tr := range r.traces {
		for _, rs := range tr.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					for _, kv := range s.Attributes {
						if v := kv.Value.GetStringValue(); v != "" && (strings.Contains(v, "tell me the plans") || strings.Contains(v, "launch on tuesday")) {
							t.Errorf("span %s carries content (%s) without capture", s.Name, kv.Key)
						}
					}
				}
			}
		}
	}
}

// A command that opens no session (agent sessions list) sets no telemetry
// up: nothing is sent, nothing is waited for at its end, and nothing of
// telemetry is said, not even what a set-up would warn of (a logs exporter
// agent lacks).
func TestACommandWithoutASessionExportsNothing(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, accept)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.URL(), "OTEL_LOGS_EXPORTER=console"},
		Args: []string{"sessions", "list", "--db", filepath.Join(t.TempDir(), "agent.db")}})
	if res.Code != 0 || strings.Contains(res.Stderr, "telemetry") {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	select {
	case <-r.arrived:
		t.Errorf("agent sessions list exported telemetry")
	default:
	}
}

// What the environment asks that agent cannot export (a console exporter
// set for another program) turns that signal off with one warning; the
// run and the other signals go on.
func TestAnExporterAgentLacksIsOneWarning(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, accept)
	srv := scripted.New(t, scripted.Text("fine"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.URL(), "OTEL_LOGS_EXPORTER=console"},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "hi")})
	if res.Code != 0 || res.Stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q: %s", res.Code, res.Stdout, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "telemetry"); n != 1 || !strings.Contains(res.Stderr, "OTEL_LOGS_EXPORTER=console") {
		t.Errorf("stderr %q: want one warning naming OTEL_LOGS_EXPORTER=console", res.Stderr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.traces) == 0 || len(r.logs) != 0 {
		t.Errorf("exports: %d of traces, %d of logs; want traces and no logs", len(r.traces), len(r.logs))
	}
}
