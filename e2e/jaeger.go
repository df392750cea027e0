package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// JaegerVersion is the Jaeger release the telemetry tests run as their
// trace backend: its `jaeger` binary (Jaeger v2, an OpenTelemetry
// Collector distribution) with an OTLP receiver and the query API.
const JaegerVersion = "v1.76.0"

// JaegerBinary is where .ci/run builds Jaeger from its module source
// ($XDG_CACHE_HOME/agent-ci/jaeger-v1.76.0/jaeger, or ~/.cache's), or
// $AGENT_TEST_JAEGER; "" when there is none.
func JaegerBinary() string {
	if p := os.Getenv("AGENT_TEST_JAEGER"); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(dir, "agent-ci", "jaeger-"+JaegerVersion, "jaeger")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Jaeger is a running Jaeger with in-memory storage, listening on
// 127.0.0.1 only.
type Jaeger struct {
	// OTLPHTTP is the OTLP/HTTP receiver's base URL, OTLPGRPC the OTLP/gRPC
	// receiver's (http://host:port), Query the query API's base URL.
	OTLPHTTP, OTLPGRPC, Query string
}

// StartJaeger starts Jaeger for the test and stops it (and waits for it)
// at the test's end. The test is skipped, saying how to build it, when
// the binary is absent (failed in CI, whose .ci/run builds it).
func StartJaeger(t *testing.T) *Jaeger {
	t.Helper()
	bin := JaegerBinary()
	if bin == "" && os.Getenv("CI") != "" {
		t.Fatalf("Jaeger %s is not built, and CI must run this test: .ci/run builds it", JaegerVersion)
	}
	if bin == "" {
		t.Skipf("Jaeger %s is not built: .ci/run builds it (go mod download -json github.com/jaegertracing/jaeger@%s, then go build ./cmd/jaeger in its directory, to ~/.cache/agent-ci/jaeger-%s/jaeger), or set AGENT_TEST_JAEGER",
			JaegerVersion, JaegerVersion, JaegerVersion)
	}
	for attempt := 0; ; attempt++ {
		j, err := startJaeger(t, bin)
		if err == nil {
			return j
		}
		if attempt == 2 { // a port taken between its choice and Jaeger's listen, three times
			t.Fatal(err)
		}
	}
}

func startJaeger(t *testing.T, bin string) (*Jaeger, error) {
	// In jaegerConfig's order: query HTTP, query gRPC, health, OTLP
	// HTTP, OTLP gRPC.
	ports := freePorts(t, 5)
	host := "127.0.0.1"
	cfg := fmt.Sprintf(jaegerConfig, host, ports[0], host, ports[1], host, ports[2], host, ports[3], host, ports[4])
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config=file:"+path)
	out := &readyWriter{marker: "Everything is ready", ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting jaeger: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cancel()
		<-exited
	}
	select {
	case <-out.ready: // the collector says so once every receiver and extension listens
	case err := <-exited:
		cancel()
		return nil, fmt.Errorf("jaeger exited before it was ready (%v):\n%s", err, out.String())
	case <-time.After(HangLimit):
		stop()
		t.Fatalf("jaeger was not ready within %v:\n%s", HangLimit, out.String())
	}
	t.Cleanup(stop)
	return &Jaeger{
		Query:    fmt.Sprintf("http://%s:%d", host, ports[0]),
		OTLPHTTP: fmt.Sprintf("http://%s:%d", host, ports[3]),
		OTLPGRPC: fmt.Sprintf("http://%s:%d", host, ports[4]),
	}, nil
}

// jaegerConfig is a Jaeger v2 configuration: OTLP in (gRPC, HTTP), memory
// storage, the query API; nothing else listens.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: %s:%d
    grpc:
      endpoint: %s:%d
  healthcheckv2:
    use_v2: true
    http:
      endpoint: %s:%d
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s:%d
      grpc:
        endpoint: %s:%d
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// freePorts returns n TCP ports free on 127.0.0.1 a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// readyWriter keeps what a process writes and closes ready once marker
// was written.
type readyWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	marker string
	ready  chan struct{}
	closed bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.closed && strings.Contains(w.buf.String(), w.marker) {
		w.closed = true
		close(w.ready)
	}
	return len(p), nil
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// JaegerSpan is a span as Jaeger's query API returns it.
type JaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	Logs []struct {
		Fields []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"fields"`
	} `json:"logs"`
}

// Parent is the span's parent's id ("" for a root).
func (s JaegerSpan) Parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// Tag is the value of the span's tag key, as its string ("" when absent).
func (s JaegerSpan) Tag(key string) string {
	for _, tag := range s.Tags {
		if tag.Key == key {
			return fmt.Sprint(tag.Value)
		}
	}
	return ""
}

// Trace returns the spans of trace id once at least want of them are
// stored (the OTLP receiver stores what it took before it answers; the
// wait covers the query side's refresh).
func (j *Jaeger) Trace(t *testing.T, id string, want int) []JaegerSpan {
	t.Helper()
	deadline := time.Now().Add(HangLimit)
	var last string
	for {
		spans, raw := j.trace(t, id)
		if len(spans) >= want {
			return spans
		}
		last = raw
		if time.Now().After(deadline) {
			t.Fatalf("jaeger has %d spans of trace %s, want %d: %s", len(spans), id, want, last)
		}
		time.Sleep(20 * time.Millisecond) // polling the query API: it has no way to wait for spans
	}
}

func (j *Jaeger) trace(t *testing.T, id string) ([]JaegerSpan, string) {
	resp, err := http.Get(j.Query + "/api/traces/" + id)
	if err != nil {
		t.Fatalf("querying jaeger: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			Spans []JaegerSpan `json:"spans"`
		} `json:"data"`
	}
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatalf("reading jaeger's answer: %v", err)
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Data) == 0 {
		return nil, string(raw)
	}
	return body.Data[0].Spans, string(raw)
}
