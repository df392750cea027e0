package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tools/toolstest"
)

func TestConformance(t *testing.T) {
	toolstest.Run(t, toolstest.Suite{Tool: plan.New(plan.Config{}), SchemaInvalid: []string{`{}`, `{"plan":""}`},
		BadArgs: []string{`{"plan":"do it"}`}}) // plan mode is off
}

// The person's answers reach the model: approval names the new mode,
// feedback keeps plan mode on, a headless run stops with the plan.
func TestOutcomesReachTheModel(t *testing.T) {
	for _, c := range []struct {
		o    plan.Outcome
		want string
	}{
		{plan.Outcome{Approved: true, Mode: "auto"}, "permission mode: auto"},
		{plan.Outcome{Feedback: "use a map"}, "said: use a map"},
		{plan.Outcome{Stop: true}, "the run ends here"},
	} {
		tool := plan.New(plan.Config{Active: func() bool { return true },
			Decide: func(context.Context, string, string) (plan.Outcome, error) { return c.o, nil }})
		res, err := tool.Run(context.Background(), tools.Call{ID: "p", Args: json.RawMessage(`{"plan":"# Fix\n1. edit"}`)})
		if err != nil || res.IsError || !strings.Contains(res.Content, c.want) || res.Meta["plan"] != "# Fix\n1. edit" {
			t.Errorf("%+v: %+v, %v", c.o, res, err)
		}
	}
}
