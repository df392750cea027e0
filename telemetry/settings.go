package telemetry

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agent-dev/agent/tools/shell"
)

// File is the config file's [telemetry] table. The standard OpenTelemetry
// environment variables win over each key (OTEL_EXPORTER_OTLP_ENDPOINT
// over endpoint, and so on): the environment is the job's, closest to the
// run.
//
//	[telemetry]
//	endpoint = "http://otel-collector:4318"   # OTLP: http/protobuf's base URL, or grpc's host:port as a URL
//	protocol = "http/protobuf"                # or "grpc"
//	headers = { "x-team" = "platform" }        # secrets belong in OTEL_EXPORTER_OTLP_HEADERS
//	capture_content = false                   # prompts, answers, tool arguments and results (secrets masked)
//	service_name = "agent"
//	resource_attributes = { "deployment.environment" = "ci" }
type File struct {
	Endpoint           string            `toml:"endpoint"`
	Protocol           string            `toml:"protocol"`
	Headers            map[string]string `toml:"headers"`
	CaptureContent     bool              `toml:"capture_content"`
	ServiceName        string            `toml:"service_name"`
	ResourceAttributes map[string]string `toml:"resource_attributes"`
}

// The OTLP protocols the exporters speak (the OTLP exporter
// specification's values of OTEL_EXPORTER_OTLP_PROTOCOL).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Signals are the three kinds of telemetry, as their environment
// variables name them (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT...).
var Signals = []string{"traces", "metrics", "logs"}

// Settings are the resolved telemetry settings: the config file's table
// with the environment over it.
type Settings struct {
	// Signals maps each signal that is exported ("traces", "metrics",
	// "logs") to how; a signal that is absent is not exported. Empty
	// means telemetry is off, which costs nothing.
	Signals map[string]Exporter
	// CaptureContent puts message content, tool arguments and results in
	// spans and log records (secrets masked).
	CaptureContent bool
	// ServiceName is service.name when OTEL_SERVICE_NAME does not say it
	// ("agent" by default); Resource are the config's resource attributes,
	// under OTEL_RESOURCE_ATTRIBUTES' (which the SDK reads itself).
	ServiceName string
	Resource    map[string]string
	// Warnings say what of the environment's telemetry settings agent
	// cannot follow (an exporter or protocol it does not have): the
	// signal is then off, and the person is told once.
	Warnings []string
}

// Exporter is how one signal is exported.
type Exporter struct {
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// Endpoint is the config file's endpoint for the signal, "" when the
	// environment names one (the exporter reads it there) ; Headers the
	// config's headers, nil when the environment has them.
	Endpoint string
	Headers  map[string]string
}

// On reports whether anything is exported.
func (s Settings) On() bool { return len(s.Signals) > 0 }

// Resolve resolves f under the environment (getenv): OTEL_SDK_DISABLED,
// the OTLP endpoints, protocols and headers (general and per signal),
// OTEL_{TRACES,METRICS,LOGS}_EXPORTER=none and
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, after the
// OpenTelemetry specification's "Environment Variable Specification" and
// "OTLP Exporter Configuration". A signal is exported when an endpoint is
// configured for it (the general one or its own) and its exporter is not
// "none". where names the config file in errors: an unknown protocol in
// the file is an error; an unknown exporter or protocol in the environment
// (perhaps set for other programs) turns its signal off with a warning
// (Settings.Warnings).
func Resolve(f File, getenv func(string) string, where string) (Settings, error) {
	s := Settings{ServiceName: f.ServiceName, Resource: f.ResourceAttributes, CaptureContent: f.CaptureContent}
	if s.ServiceName == "" {
		s.ServiceName = "agent"
	}
	switch strings.ToLower(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")) {
	case "true":
		s.CaptureContent = true
	case "false":
		s.CaptureContent = false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return s, nil
	}
	if f.Protocol != "" && f.Protocol != ProtocolHTTP && f.Protocol != ProtocolGRPC {
		return s, fmt.Errorf("%s: telemetry: protocol %q: want %s or %s", where, f.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	if f.Endpoint != "" && !isEndpoint(f.Endpoint) {
		return s, fmt.Errorf("%s: telemetry: endpoint %q is not a URL (http://host:port)", where, shell.MaskSecrets(f.Endpoint))
	}
	// An endpoint in the environment that is no URL would send the
	// exporter to its default (https://localhost:4318), and the warning
	// would name that: it is named itself instead, and not used.
	general := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	if general != "" && !isEndpoint(general) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("OTEL_EXPORTER_OTLP_ENDPOINT=%s is not a URL (http://host:port): nothing is sent to it", shell.MaskSecrets(general)))
		general = ""
	}
	for _, sig := range Signals {
		up := strings.ToUpper(sig)
		switch x := strings.TrimSpace(getenv("OTEL_" + up + "_EXPORTER")); x {
		case "", "otlp":
		case "none":
			continue
		default: // another program's setting, perhaps: the signal is off, not the run
			s.Warnings = append(s.Warnings, fmt.Sprintf("OTEL_%s_EXPORTER=%s: agent exports otlp or none; %s are not exported", up, x, sig))
			continue
		}
		own := getenv("OTEL_EXPORTER_OTLP_" + up + "_ENDPOINT")
		if own != "" && !isEndpoint(own) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("OTEL_EXPORTER_OTLP_%s_ENDPOINT=%s is not a URL (http://host:port): %s are not exported", up, shell.MaskSecrets(own), sig))
			continue
		}
		envEndpoint := own != "" || general != ""
		if !envEndpoint && f.Endpoint == "" {
			continue
		}
		e := Exporter{Protocol: first(getenv("OTEL_EXPORTER_OTLP_"+up+"_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), f.Protocol, ProtocolHTTP)}
		if e.Protocol != ProtocolHTTP && e.Protocol != ProtocolGRPC {
			s.Warnings = append(s.Warnings, fmt.Sprintf("OTLP protocol %q for %s: agent speaks %s and %s; %s are not exported", e.Protocol, sig, ProtocolHTTP, ProtocolGRPC, sig))
			continue
		}
		if !envEndpoint {
			e.Endpoint = f.Endpoint
		}
		if getenv("OTEL_EXPORTER_OTLP_"+up+"_HEADERS") == "" && getenv("OTEL_EXPORTER_OTLP_HEADERS") == "" {
			e.Headers = f.Headers
		}
		if s.Signals == nil {
			s.Signals = map[string]Exporter{}
		}
		s.Signals[sig] = e
	}
	return s, nil
}

// isEndpoint reports whether v is an OTLP endpoint as the specification
// writes one, for either protocol: an http or https URL with a host.
func isEndpoint(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// first returns the first of vs that is not empty.
func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
