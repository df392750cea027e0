package sessions_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// The stored decision text: the outcome, then who or what decided.
func TestDecideToolCall(t *testing.T) {
	tests := []struct {
		allowed bool
		why     string
		want    string
	}{
		{true, "person: once", "allowed: person: once"},
		{true, `rule: allow "git status"`, `allowed: rule: allow "git status"`},
		{true, "sandbox: workspace-write, network off", "allowed: sandbox: workspace-write, network off"},
		{true, "yolo", "allowed: yolo"},
		{false, "person: once", "denied: person: once"},
		{false, `denied by rule "rm"`, `denied by rule "rm"`},
		{false, "denied: nobody to ask", "denied: nobody to ask"},
		{true, "allowed by rule", "allowed by rule"},
		{true, "", "allowed"},
		{false, "  ", "denied"},
		// The outcome wins over a reason that says the opposite.
		{true, "denied by nothing", "allowed: denied by nothing"},
	}
	ctx := context.Background()
	s := openStore(t)
	for _, tt := range tests {
		ss := create(t, s, t.TempDir(), "")
		rec := s.Recorder(ss.ID)
		call, look := bashCall("c1"), providers.ToolCall{ID: "c2", Name: "read_file", Arguments: `{}`}
		must(t, rec.AppendMessage(ctx, userMsg("go"), zeroUsage))
		must(t, rec.AppendMessage(ctx, assistantMsg("", call, look), zeroUsage))
		t0 := time.Now()
		must(t, rec.StartToolCall(ctx, look, t0))
		must(t, rec.StartToolCall(ctx, call, t0))
		must(t, rec.DecideToolCall(ctx, call, tt.allowed, tt.why, 0))
		res := providers.ToolResult{CallID: call.ID, Name: call.Name, Content: "out", IsError: !tt.allowed}
		must(t, rec.FinishToolCall(ctx, call, res, t0, t0.Add(time.Millisecond)))
		must(t, rec.FinishToolCall(ctx, look, providers.ToolResult{CallID: look.ID, Name: look.Name}, t0, t0))
		calls, err := s.ToolCalls(ctx, ss.ID)
		must(t, err)
		if len(calls) != 2 || calls[0].Decision != tt.want || calls[0].Result != "out" {
			t.Errorf("DecideToolCall(%v, %q), then FinishToolCall: %+v; want decision %q", tt.allowed, tt.why, calls, tt.want)
		}
		if calls[1].Decision != "" {
			t.Errorf("a call without a decision has %q", calls[1].Decision)
		}
	}
}

// A model may repeat a call id within one message; the loop runs such calls
// one after the other (start, decide, finish), and each decision belongs to
// the call that is running.
func TestDecideRepeatedCallIDs(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ss := create(t, s, t.TempDir(), "")
	rec := s.Recorder(ss.ID)
	c := bashCall("dup")
	must(t, rec.AppendMessage(ctx, assistantMsg("", c, c), zeroUsage))
	t0 := time.Now()
	for _, why := range []string{"person: once", "rule: rm"} {
		must(t, rec.StartToolCall(ctx, c, t0))
		must(t, rec.DecideToolCall(ctx, c, why == "person: once", why, 0))
		must(t, rec.FinishToolCall(ctx, c, providers.ToolResult{CallID: c.ID, Name: c.Name, Content: why}, t0, t0))
	}
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 || calls[0].Result != "person: once" || calls[0].Decision != "allowed: person: once" ||
		calls[1].Result != "rule: rm" || calls[1].Decision != "denied: rule: rm" {
		t.Errorf("calls %+v", calls)
	}
}

// TestMigrateV2 opens a database written at schema version 2: its data is
// kept, its tool calls have no decision, and new calls record one.
func TestMigrateV2(t *testing.T) {
	ctx := context.Background()
	s := migrated(t, 2,
		`INSERT INTO sessions (id, title, dir, model, status, created_at, updated_at, message_count)
			VALUES ('0123456789ab', 'old', '/w', 'm', 'completed', 1, 2, 3)`,
		`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES
			('0123456789ab', 1, 'user', '[{"type":"text","text":"hi"}]', 1),
			('0123456789ab', 2, 'assistant', '[{"type":"tool_call","id":"c1","name":"bash","arguments":"{}"}]', 1),
			('0123456789ab', 3, 'tool', '[{"type":"tool_result","call_id":"c1","name":"bash","content":"done"}]', 2)`,
		`INSERT INTO tool_calls (session_id, message_id, call_id, name, arguments, result, status, started_at, finished_at, duration_ms)
			VALUES ('0123456789ab', 2, 'c1', 'bash', '{}', 'done', 'completed', 1000, 1040, 40)`,
		`INSERT INTO file_snapshots (session_id, turn, path, existed, prior_content, created_at)
			VALUES ('0123456789ab', 1, 'a.txt', 1, 'before', 1)`,
	)
	ss, err := s.Get(ctx, "0123456789ab")
	must(t, err)
	if ss.Title != "old" || ss.Messages != 3 {
		t.Errorf("migrated session = %+v", ss)
	}
	msgs, err := s.Messages(ctx, ss.ID)
	must(t, err)
	if len(msgs) != 3 || len(msgs[1].ToolCalls()) != 1 {
		t.Errorf("migrated messages = %+v", msgs)
	}
	calls, err := s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 1 || calls[0].Result != "done" || calls[0].Duration != 40*time.Millisecond ||
		calls[0].Status != sessions.ToolCompleted || calls[0].Decision != "" {
		t.Errorf("migrated tool calls = %+v", calls)
	}
	var decision sql.NullString
	must(t, sessions.DB(s).QueryRow(`SELECT decision FROM tool_calls WHERE call_id = 'c1'`).Scan(&decision))
	if decision.Valid {
		t.Errorf("a call recorded before decisions has decision %q, want NULL", decision.String)
	}
	var snapshots int
	must(t, sessions.DB(s).QueryRow(`SELECT count(*) FROM file_snapshots`).Scan(&snapshots))
	if snapshots != 1 {
		t.Errorf("%d file snapshots after migrating, want 1", snapshots)
	}

	// The migrated session goes on, with decisions.
	rec := s.Recorder(ss.ID)
	c := bashCall("c2")
	must(t, rec.AppendMessage(ctx, userMsg("again"), zeroUsage))
	must(t, rec.AppendMessage(ctx, assistantMsg("", c), zeroUsage))
	must(t, rec.DecideToolCall(ctx, c, false, "nobody to ask", 0))
	calls, err = s.ToolCalls(ctx, ss.ID)
	must(t, err)
	if len(calls) != 2 || calls[0].Decision != "" || calls[1].Decision != "denied: nobody to ask" {
		t.Errorf("tool calls after a decision = %+v", calls)
	}
}
