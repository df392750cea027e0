//go:build linux

package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// In the interface, telemetry never writes raw to the terminal (the
// OpenTelemetry SDK's own logger, "internal_logging.go: ...", would draw
// over the screen): a collector that refuses, with a malformed
// OTEL_EXPORTER_OTLP_TIMEOUT beside it, is the one warning, on the
// interface's warning line, and the conversation goes on.
func TestTelemetryWarningIsOnTheWarningLine(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("the answer"), scripted.Text("the second answer"))
	s := e2e.StartTmux(t, t.TempDir(), []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TIMEOUT=abc",
		"OTEL_BSP_SCHEDULE_DELAY=100"}, // the turn's spans are exported (and refused) soon after it
		e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db")))
	s.WaitFor("Ask about this repository")
	s.Send("hi")
	s.WaitFor("the answer")
	s.WaitFor("telemetry")
	s.Send("again")
	s.WaitFor("the second answer")
	s.Idle()
	if hist := s.History(); strings.Contains(hist, "internal_logging") || strings.Count(hist, "telemetry:") > 1 {
		t.Errorf("the terminal has the SDK's own log or more than one telemetry warning:\n%s", hist)
	}
	s.Quit()
}
