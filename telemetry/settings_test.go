package telemetry_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/telemetry"
)

// env is an environment for getenv: a variable it does not list is unset.
type env map[string]string

func (e env) get(name string) string { return e[name] }

func TestResolve(t *testing.T) {
	const general, traces = "http://collector:4318", "http://traces:4318"
	tests := []struct {
		name string
		file telemetry.File
		env  env
		// want are the signals exported and how; nil: telemetry off.
		want map[string]telemetry.Exporter
	}{
		{"nothing configured", telemetry.File{}, env{}, nil},
		{"empty variables count as unset",
			telemetry.File{}, env{"OTEL_EXPORTER_OTLP_ENDPOINT": "", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ""}, nil},
		{"the general endpoint turns every signal on",
			telemetry.File{}, env{"OTEL_EXPORTER_OTLP_ENDPOINT": general},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolHTTP})},
		{"a signal's endpoint turns on that signal only",
			telemetry.File{}, env{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": traces},
			map[string]telemetry.Exporter{"traces": {Protocol: telemetry.ProtocolHTTP}}},
		{"the config's endpoint, protocol and headers when the environment says nothing",
			telemetry.File{Endpoint: general, Protocol: "grpc", Headers: map[string]string{"x-team": "a"}}, env{},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolGRPC, Endpoint: general, Headers: map[string]string{"x-team": "a"}})},
		{"the environment's endpoint, protocol and headers win over the config's",
			telemetry.File{Endpoint: general, Protocol: "grpc", Headers: map[string]string{"x-team": "a"}},
			env{"OTEL_EXPORTER_OTLP_ENDPOINT": traces, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_HEADERS": "x-team=b"},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolHTTP})},
		{"a signal's own protocol and headers win for that signal",
			telemetry.File{Endpoint: general, Headers: map[string]string{"x-team": "a"}},
			env{"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "x-team=b"},
			map[string]telemetry.Exporter{
				"traces":  {Protocol: telemetry.ProtocolHTTP, Endpoint: general, Headers: map[string]string{"x-team": "a"}},
				"metrics": {Protocol: telemetry.ProtocolHTTP, Endpoint: general},
				"logs":    {Protocol: telemetry.ProtocolGRPC, Endpoint: general, Headers: map[string]string{"x-team": "a"}},
			}},
		{"a signal's endpoint in the environment wins over the config's for that signal",
			telemetry.File{Endpoint: general}, env{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": traces},
			map[string]telemetry.Exporter{
				"traces":  {Protocol: telemetry.ProtocolHTTP},
				"metrics": {Protocol: telemetry.ProtocolHTTP, Endpoint: general},
				"logs":    {Protocol: telemetry.ProtocolHTTP, Endpoint: general},
			}},
		{"an empty protocol variable leaves the config's",
			telemetry.File{Endpoint: general, Protocol: "grpc"}, env{"OTEL_EXPORTER_OTLP_PROTOCOL": ""},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolGRPC, Endpoint: general})},
		{"exporter none turns one signal off",
			telemetry.File{}, env{"OTEL_EXPORTER_OTLP_ENDPOINT": general, "OTEL_METRICS_EXPORTER": "none"},
			map[string]telemetry.Exporter{"traces": {Protocol: telemetry.ProtocolHTTP}, "logs": {Protocol: telemetry.ProtocolHTTP}}},
		{"exporter otlp is the default",
			telemetry.File{}, env{"OTEL_EXPORTER_OTLP_ENDPOINT": general, "OTEL_TRACES_EXPORTER": "otlp", "OTEL_LOGS_EXPORTER": ""},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolHTTP})},
		{"every exporter none is off",
			telemetry.File{Endpoint: general}, env{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_LOGS_EXPORTER": "none"}, nil},
		{"OTEL_SDK_DISABLED wins over everything",
			telemetry.File{Endpoint: general, Protocol: "nonsense"},
			env{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": general, "OTEL_TRACES_EXPORTER": "console"}, nil},
		{"OTEL_SDK_DISABLED=false is not disabled",
			telemetry.File{}, env{"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": general},
			all(telemetry.Exporter{Protocol: telemetry.ProtocolHTTP})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := telemetry.Resolve(tc.file, tc.env.get, "config.toml")
			if err != nil {
				t.Fatal(err)
			}
			if s.On() != (tc.want != nil) {
				t.Errorf("On() = %v, want %v", s.On(), tc.want != nil)
			}
			if !maps.EqualFunc(s.Signals, tc.want, sameExporter) {
				t.Errorf("signals\n got %+v\nwant %+v", s.Signals, tc.want)
			}
		})
	}
}

// all is e for every signal.
func all(e telemetry.Exporter) map[string]telemetry.Exporter {
	return map[string]telemetry.Exporter{"traces": e, "metrics": e, "logs": e}
}

func sameExporter(a, b telemetry.Exporter) bool {
	return a.Protocol == b.Protocol && a.Endpoint == b.Endpoint && maps.Equal(a.Headers, b.Headers) && (a.Headers == nil) == (b.Headers == nil)
}

// A protocol the config file names that agent does not speak is the
// file's error (exit 2), like any other key's bad value.
func TestResolveRejectsTheConfigsUnknownProtocol(t *testing.T) {
	tests := []struct {
		name string
		file telemetry.File
		// want are words the error must have.
		want []string
	}{
		{"with an endpoint", telemetry.File{Endpoint: "http://c:4318", Protocol: "http/json"},
			[]string{"config.toml", `"http/json"`, "http/protobuf", "grpc"}},
		{"without one", telemetry.File{Protocol: "udp"}, []string{"config.toml", `"udp"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := telemetry.Resolve(tc.file, env{}.get, "config.toml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// What the environment asks that agent cannot do (an exporter or a
// protocol it does not have, perhaps set for other programs) turns that
// signal off with a warning; the run and the other signals go on.
func TestResolveTurnsOffWhatTheEnvironmentAsksAndItCannotDo(t *testing.T) {
	tests := []struct {
		name string
		file telemetry.File
		env  env
		off  []string // the signals turned off
		want []string // words the warning must have
	}{
		{"the environment's protocol", telemetry.File{}, env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			[]string{"traces", "metrics", "logs"}, []string{`"http/json"`, "http/protobuf", "grpc"}},
		{"a signal's protocol", telemetry.File{Endpoint: "http://c:4318"}, env{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "thrift"},
			[]string{"metrics"}, []string{`"thrift"`, "metrics"}},
		{"an exporter", telemetry.File{Endpoint: "http://c:4318"}, env{"OTEL_LOGS_EXPORTER": "console"},
			[]string{"logs"}, []string{"OTEL_LOGS_EXPORTER=console", "otlp", "none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := telemetry.Resolve(tc.file, tc.env.get, "config.toml")
			if err != nil {
				t.Fatalf("an error: %v", err)
			}
			if len(s.Warnings) != len(tc.off) {
				t.Fatalf("warnings %q, want %d", s.Warnings, len(tc.off))
			}
			for _, w := range tc.want {
				if !strings.Contains(s.Warnings[0], w) {
					t.Errorf("warning %q does not say %q", s.Warnings[0], w)
				}
			}
			for _, sig := range telemetry.Signals {
				_, on := s.Signals[sig]
				if on == slices.Contains(tc.off, sig) {
					t.Errorf("signal %s on = %v, want %v", sig, on, !on)
				}
			}
		})
	}
}

func TestResolveCaptureContent(t *testing.T) {
	tests := []struct {
		config bool
		env    string
		want   bool
	}{
		{false, "", false},
		{true, "", true},
		{false, "true", true},
		{false, "TRUE", true},
		{true, "false", false},
		{true, "False", false},
		{true, "maybe", true}, // not a boolean: the config's stands
	}
	for _, tc := range tests {
		e := env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": tc.env}
		s, err := telemetry.Resolve(telemetry.File{CaptureContent: tc.config}, e.get, "config.toml")
		if err != nil {
			t.Fatal(err)
		}
		if s.CaptureContent != tc.want {
			t.Errorf("capture_content %v, env %q: CaptureContent = %v, want %v", tc.config, tc.env, s.CaptureContent, tc.want)
		}
	}
}

func TestResolveServiceAndResource(t *testing.T) {
	s, err := telemetry.Resolve(telemetry.File{}, env{}.get, "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.ServiceName != "agent" {
		t.Errorf("default service name %q, want agent", s.ServiceName)
	}
	f := telemetry.File{ServiceName: "ci-agent", ResourceAttributes: map[string]string{"deployment.environment": "ci"}}
	if s, err = telemetry.Resolve(f, env{}.get, "config.toml"); err != nil {
		t.Fatal(err)
	}
	if s.ServiceName != "ci-agent" || s.Resource["deployment.environment"] != "ci" {
		t.Errorf("service %q, resource %v", s.ServiceName, s.Resource)
	}
}

func TestOffCostsNothing(t *testing.T) {
	s, err := telemetry.Resolve(telemetry.File{CaptureContent: true}, env{}.get, "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.Setup(context.Background(), s, telemetry.Options{Getenv: env{}.get})
	if err != nil || tel != nil {
		t.Fatalf("Setup with telemetry off = %v, %v; want nil, nil", tel, err)
	}
	if got := slices.Sorted(maps.Keys(s.Signals)); len(got) != 0 {
		t.Errorf("signals %v", got)
	}
}
