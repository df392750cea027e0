package telemetry_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

// receiver is an OTLP/HTTP receiver on 127.0.0.1 that takes every export
// and keeps its path and x-team header.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]string // path: x-team
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{paths: map[string]string{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		if req.Method == http.MethodPost && req.Header.Get("Content-Type") == "application/x-protobuf" {
			r.paths[req.URL.Path] = req.Header.Get("x-team")
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.paths)
}

// exportATurn sets telemetry up as s says, over OTLP, runs a turn and
// shuts down.
func exportATurn(t *testing.T, s telemetry.Settings) {
	t.Helper()
	tel, err := telemetry.Setup(context.Background(), s, telemetry.Options{Getenv: env{}.get})
	if err != nil || tel == nil {
		t.Fatalf("Setup = %v, %v", tel, err)
	}
	run(newLoop(t, fake.New(fake.Text("hi").WithUsage(3, 1)), tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})),
		conversation.New("", nil), "go")
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEverySignalReachesTheConfigsReceiver(t *testing.T) {
	r := newReceiver(t)
	s, err := telemetry.Resolve(telemetry.File{Endpoint: r.URL + "/", Headers: map[string]string{"x-team": "platform"}}, env{}.get, "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	exportATurn(t, s)
	want := map[string]string{"/v1/traces": "platform", "/v1/metrics": "platform", "/v1/logs": "platform"}
	if got := r.received(); !maps.Equal(got, want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

func TestTheEnvironmentsEndpointWinsOverTheConfigs(t *testing.T) {
	config, environment := newReceiver(t), newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", environment.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=ci")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	s, err := telemetry.Resolve(telemetry.File{Endpoint: config.URL, Headers: map[string]string{"x-team": "platform"}}, os.Getenv, "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	exportATurn(t, s)
	if got := config.received(); len(got) != 0 {
		t.Errorf("the config's receiver got %v", got)
	}
	want := map[string]string{"/v1/traces": "ci", "/v1/logs": "ci"}
	if got := environment.received(); !maps.Equal(got, want) {
		t.Errorf("the environment's receiver got %v, want %v", got, want)
	}
}
