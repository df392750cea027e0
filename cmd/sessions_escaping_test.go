package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// sessions show and export print "&&" as "&&": never \u0026\u0026, whether
// the model escaped it in its arguments or our own JSON encoding would
// have; the JSON export still decodes to the same text.
func TestSessionsPrintAmpersandsAsWritten(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "agent.db")
	s, err := sessions.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := s.Create(ctx, sessions.NewSession{Dir: t.TempDir(), Model: "gpt-test", Title: "build && test"})
	if err != nil {
		t.Fatal(err)
	}
	rec := s.Recorder(ss.ID)
	escaped := providers.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"go build \u0026\u0026 go test"}`}
	plain := providers.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command":"make && make test"}`}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, step := range []func() error{
		func() error {
			return rec.AppendMessage(ctx, providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "run a && b <c>"}}}, providers.Usage{})
		},
		func() error {
			return rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{escaped, plain}}, providers.Usage{})
		},
		func() error { return rec.StartToolCall(ctx, escaped, t0) },
		func() error {
			return rec.FinishToolCall(ctx, escaped, providers.ToolResult{CallID: "c1", Name: "bash", Content: "ok && fine"}, t0, t0.Add(time.Millisecond))
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	for _, args := range [][]string{{"show", ss.ID}, {"export", ss.ID}, {"export", "--format", "markdown", ss.ID}, {"list", "--json", "--all"}} {
		out := mustRun(t, db, args...)
		if strings.Contains(out, `u0026`) || strings.Contains(out, `u003c`) {
			t.Errorf("sessions %s prints escapes:\n%s", strings.Join(args, " "), out)
		}
	}
	out := mustRun(t, db, "show", ss.ID)
	for _, want := range []string{"go build && go test", "make && make test", "run a && b <c>"} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, out)
		}
	}
}
