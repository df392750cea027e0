package telemetry

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// A malformed OTEL_EXPORTER_OTLP_HEADERS (one pair written "key: value",
// as HTTP writes it) must not print the headers' values to stderr, which
// is a CI job's log: the README says the headers are where secrets go.
// Neither the SDK's own logger nor the one warning may print them.
func TestMalformedOTLPHeadersDoNotPrintTheirSecrets(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, accept)
	srv := scripted.New(t, scripted.Text("fine"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.URL(),
		"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer opaqueCollectorToken0123456789,x-tenant: TENANTSECRET42"},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "hi")})
	if res.Code != 0 || res.Stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q: %s", res.Code, res.Stdout, res.Stderr)
	}
	for _, secret := range []string{"opaqueCollectorToken0123456789", "TENANTSECRET42"} {
		if strings.Contains(res.Stderr, secret) {
			t.Errorf("stderr prints the OTLP header value %q:\n%s", secret, res.Stderr)
		}
	}
}

// Whatever the environment gets wrong, telemetry is one warning line on
// stderr: never the OpenTelemetry SDK's own logger (its "2026/..
// internal_logging.go:50: ..." lines, printed because agent never calls
// otel.SetLogger), which in the interface would write raw to the terminal.
func TestSDKInternalLogNeverReachesStderr(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT=::::"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT=127.0.0.1:4318"}, // host:port, gRPC's habit
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TIMEOUT=abc"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS=%%%,=,a"},
	} {
		t.Run(strings.ReplaceAll(strings.Join(env, " "), "/", "_"), func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("fine"))
			res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env,
				Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "hi")})
			if res.Code != 0 || res.Stdout != "fine\n" {
				t.Fatalf("exit %d, stdout %q: %s", res.Code, res.Stdout, res.Stderr)
			}
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "agent: telemetry: ") || strings.Contains(res.Stderr, "internal_logging") {
				t.Errorf("stderr is not one telemetry warning line:\n%s", res.Stderr)
			}
		})
	}
}

// A malformed per-signal endpoint is reported as what it is, and nothing
// is sent to the SDK's default (https://localhost:4318) instead, which a
// warning would name, pointing the person at the wrong variable.
func TestMalformedSignalEndpointIsNamed(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("fine"))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://[::1"},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "hi")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || strings.Contains(res.Stderr, "localhost:4318") {
		t.Errorf("the warning does not name the malformed variable, or names the SDK's default instead:\n%s", res.Stderr)
	}
}
