package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

func TestAnApprovalThatAllowsOtherArgumentsRunsTheCallWithThemOnceValid(t *testing.T) {
	for _, tt := range []struct {
		name, args, want string
		isError          bool
	}{
		{"valid", `{"x":"safe"}`, `write got {"x":"safe"}`, false},
		{"invalid", `{"x":3}`, "allowed with other arguments, which are not valid", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			cfg := loop.Config{Approve: func(_ context.Context, a loop.Approval) loop.Decision {
				asked = append(asked, a.Call.Arguments)
				return loop.Decision{Allow: true, Args: json.RawMessage(tt.args), Why: "host: allowed with changed input"}
			}}
			f := newFixture(t, cfg, []tools.Tool{echo("write", false)},
				fake.ToolCalls(fake.Call{ID: "w", Name: "write", Arguments: `{"x":"rm -rf /"}`}), fake.Text("ok"))
			evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
			if done.Reason != loop.StopAnswered {
				t.Fatalf("done %v", done.Reason)
			}
			if len(asked) != 1 || asked[0] != `{"x":"rm -rf /"}` {
				t.Errorf("the approval was asked about %q, want the model's arguments once", asked)
			}
			rs := resultsOf(f.conv.Messages())
			if len(rs) != 1 || rs[0].IsError != tt.isError || !strings.Contains(rs[0].Content, tt.want) {
				t.Fatalf("results %+v, want %q", rs, tt.want)
			}
			for _, ev := range evs {
				if fin, ok := ev.(loop.ToolCallFinished); ok && fin.Meta["decision"] != "host: allowed with changed input" {
					t.Errorf("finished event's meta %v, want the decision", fin.Meta)
				}
			}
		})
	}
}
