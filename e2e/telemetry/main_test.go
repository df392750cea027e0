// Package telemetry runs the agent with OpenTelemetry configured as a
// fleet would: against a real trace backend (Jaeger), an OTLP receiver on
// the wire, and collectors that are down, hang or refuse.
package telemetry

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
