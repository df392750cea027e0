package telemetry

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP receiver (binary protobuf, the OTLP
// specification's /v1/traces, /v1/metrics and /v1/logs) on 127.0.0.1 that
// keeps what it was sent, or fails as a collector can.
type receiver struct {
	srv *httptest.Server
	// arrived is closed at the first export to arrive, whatever the
	// receiver does with it.
	arrived chan struct{}

	mu      sync.Mutex
	first   bool
	traces  []*coltrace.ExportTraceServiceRequest
	metrics []*colmetrics.ExportMetricsServiceRequest
	logs    []*collogs.ExportLogsServiceRequest
}

// behaviour is what a receiver does with an export.
type behaviour int

const (
	accept behaviour = iota
	refuse           // 500
	hang             // never answers, until the client gives up
)

// newReceiver starts a receiver that does b with every export.
func newReceiver(t *testing.T, b behaviour) *receiver {
	r := &receiver{arrived: make(chan struct{})}
	release := make(chan struct{})
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		if !r.first {
			r.first = true
			close(r.arrived)
		}
		r.mu.Unlock()
		switch b {
		case refuse:
			http.Error(w, "the collector is broken", http.StatusInternalServerError)
			return
		case hang:
			// Read the whole export (the server notices a client that goes
			// away only then), and answer nothing until the client gives up
			// or the test ends.
			io.Copy(io.Discard, req.Body)
			select {
			case <-req.Context().Done():
			case <-release:
			}
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := r.keep(req.URL.Path, body); err != nil {
			t.Errorf("an export to %s that is not OTLP protobuf: %v", req.URL.Path, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(nil) // an empty Export*ServiceResponse
	}))
	t.Cleanup(r.srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	return r
}

// keep decodes an export by its path.
func (r *receiver) keep(path string, body []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch path {
	case "/v1/traces":
		m := &coltrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, m); err != nil {
			return err
		}
		r.traces = append(r.traces, m)
	case "/v1/metrics":
		m := &colmetrics.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(body, m); err != nil {
			return err
		}
		r.metrics = append(r.metrics, m)
	case "/v1/logs":
		m := &collogs.ExportLogsServiceRequest{}
		if err := proto.Unmarshal(body, m); err != nil {
			return err
		}
		r.logs = append(r.logs, m)
	default:
		return io.ErrUnexpectedEOF
	}
	return nil
}

// URL is the receiver's base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
func (r *receiver) URL() string { return r.srv.URL }
