package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// rig is telemetry over in-memory exporters, and what they received once
// finish is called.
type rig struct {
	tel     *telemetry.Telemetry
	spans   *keptSpans
	reader  *sdkmetric.ManualReader
	records *memLogs

	metrics metricdata.ResourceMetrics
}

// newRig sets telemetry up with s and opts over in-memory exporters of
// every signal.
func newRig(t *testing.T, s telemetry.Settings, opts telemetry.Options) *rig {
	t.Helper()
	r := &rig{spans: &keptSpans{tracetest.NewInMemoryExporter()}, reader: sdkmetric.NewManualReader(), records: &memLogs{}}
	opts.SpanExporter, opts.MetricReader, opts.LogExporter = r.spans, r.reader, r.records
	if opts.Getenv == nil {
		opts.Getenv = env{}.get
	}
	tel, err := telemetry.Setup(context.Background(), s, opts)
	if err != nil || tel == nil {
		t.Fatalf("Setup = %v, %v", tel, err)
	}
	r.tel = tel
	return r
}

// finish collects the metrics and shuts telemetry down, which exports the
// spans and records.
func (r *rig) finish(t *testing.T) {
	t.Helper()
	if err := r.reader.Collect(context.Background(), &r.metrics); err != nil {
		t.Fatal(err)
	}
	if err := r.tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// span returns the one span called name.
func (r *rig) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans %q among %v", len(found), name, r.spanNames())
	}
	return found[0]
}

func (r *rig) spanNames() []string {
	var names []string
	for _, s := range r.spans.GetSpans() {
		names = append(names, s.Name)
	}
	return names
}

// recordsOf returns the log records of event.
func (r *rig) recordsOf(event string) []sdklog.Record {
	var out []sdklog.Record
	for _, rec := range r.records.all() {
		if rec.EventName() == event {
			out = append(out, rec)
		}
	}
	return out
}

// everything is every exported span's and record's text (names,
// attributes, events, statuses, bodies), for looking for content that
// must not be there.
func (r *rig) everything() string {
	var b strings.Builder
	for _, s := range r.spans.GetSpans() {
		b.WriteString(s.Name + " " + s.Status.Description + "\n")
		writeAttrs(&b, s.Attributes)
		for _, e := range s.Events {
			b.WriteString(e.Name + "\n")
			writeAttrs(&b, e.Attributes)
		}
	}
	for _, rec := range r.records.all() {
		b.WriteString(rec.EventName() + " " + rec.Body().String() + "\n")
		rec.WalkAttributes(func(kv attribute.KeyValue) bool {
			writeAttrs(&b, []attribute.KeyValue{kv})
			return true
		})
	}
	return b.String()
}

func writeAttrs(b *strings.Builder, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		b.WriteString(string(kv.Key) + "=" + kv.Value.String() + "\n")
	}
}

// attrs returns kvs as a map of their values.
func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func recordAttrs(rec sdklog.Record) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	rec.WalkAttributes(func(kv attribute.KeyValue) bool {
		m[kv.Key] = kv.Value
		return true
	})
	return m
}

// keptSpans is the SDK's in-memory span exporter, whose spans outlive
// Shutdown (the SDK's own forgets them there).
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

// memLogs is an in-memory log exporter (the SDK has none).
type memLogs struct {
	mu      sync.Mutex
	records []sdklog.Record
}

var _ sdklog.Exporter = (*memLogs)(nil)

func (m *memLogs) Export(_ context.Context, records []sdklog.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range records {
		m.records = append(m.records, r.Clone())
	}
	return nil
}

func (*memLogs) Shutdown(context.Context) error   { return nil }
func (*memLogs) ForceFlush(context.Context) error { return nil }

func (m *memLogs) all() []sdklog.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]sdklog.Record(nil), m.records...)
}

// echo is a tool that answers "echo: " and its arguments.
type echo struct{ name string }

func (e echo) Definition() tools.Definition {
	return tools.Definition{
		Name:        e.name,
		Description: e.name + " echoes its arguments.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
	}
}

func (e echo) Run(_ context.Context, call tools.Call) (tools.Result, error) {
	return tools.Result{Content: e.name + ": " + string(call.Args)}, nil
}

// session is a conversation.Recorder that records nothing but gives the
// conversation its session id.
type session struct{ id string }

func (s session) SessionID() string { return s.id }
func (session) AppendMessage(context.Context, providers.Message, providers.Usage) error {
	return nil
}
func (session) SavePicks(context.Context, []string) error                     { return nil }
func (session) SaveCompaction(context.Context, conversation.Compaction) error { return nil }
func (session) RecordUsage(context.Context, providers.Usage) error            { return nil }

// answering is a provider that names the model that answered, as a
// server does (a dated version of the model asked).
type answering struct {
	*fake.Provider
	model string
}

func (a answering) Stream(ctx context.Context, req providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	resp, err := a.Provider.Stream(ctx, req, onEvent)
	if resp != nil {
		resp.Model = a.model
	}
	return resp, err
}

// denyRm allows every call but those of the tool rm.
func denyRm(_ context.Context, a loop.Approval) loop.Decision {
	if a.Call.Name == "rm" {
		return loop.Decision{Reason: "not rm", Why: `denied by rule "rm"`}
	}
	return loop.Decision{Allow: true, Why: "yolo"}
}

// newLoop is a loop over provider that offers echo and rm (an echo too),
// approved by denyRm and traced by tr.
func newLoop(t *testing.T, provider providers.Provider, tr loop.Tracer) *loop.Loop {
	t.Helper()
	reg, err := tools.NewRegistry(echo{"echo"}, echo{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := loop.New(loop.Config{Provider: provider, Model: "m", Catalog: picker.New(reg, picker.ModeAll), Approve: denyRm, Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// run runs a turn to its end.
func run(l *loop.Loop, conv *conversation.Conversation, prompt string) loop.Done {
	var done loop.Done
	for ev := range l.Run(context.Background(), conv, providers.UserText(prompt)) {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
	}
	return done
}

// compact compacts conv to the end.
func compact(l *loop.Loop, conv *conversation.Conversation) loop.Done {
	var done loop.Done
	for ev := range l.Compact(context.Background(), conv, "") {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
	}
	return done
}

// toolTurn is a turn that calls echo and rm (denied), then answers: the
// first response with cache reads and writes.
func toolTurn() []fake.Reply {
	first := fake.ToolCalls(
		fake.Call{ID: "call-1", Name: "echo", Arguments: `{"x":"hello"}`},
		fake.Call{ID: "call-2", Name: "rm", Arguments: `{"x":"/"}`},
	)
	first.Usage = providers.Usage{InputTokens: 100, OutputTokens: 20, CachedInputTokens: 30, CacheWriteTokens: 10}
	return []fake.Reply{first, fake.Text("done").WithUsage(150, 5)}
}
