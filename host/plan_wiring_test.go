package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/plan"
)

// Plan mode: nothing changes until a plan is given. Headless (no Plan
// func), the plan is the run's answer: exit_plan_mode's result tells the
// front-end to stop there. A front-end that approves the plan in auto
// mode switches the session to auto, and the model's next write runs.
func TestPlanMode(t *testing.T) {
	const thePlan = "1. Write plan.txt"
	for _, tc := range []struct {
		name string
		plan func(ctx context.Context, callID, text string) (plan.Outcome, error)
		// stop is whether the result says the run ends with the plan;
		// mode is the mode after the turn; written whether the write
		// after the plan ran.
		stop    bool
		says    string
		mode    string
		written bool
	}{
		{name: "headless: the plan is the answer", stop: true, says: "the run ends here", mode: host.ModePlan},
		{
			name: "approved in auto mode",
			plan: func(_ context.Context, _, text string) (plan.Outcome, error) {
				if text != thePlan {
					return plan.Outcome{Feedback: "not the plan the model gave: " + text}, nil
				}
				return plan.Outcome{Approved: true, Mode: host.ModeAuto}, nil
			},
			says: "approved", mode: host.ModeAuto, written: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(
				fake.ToolCalls(call("w1", "write_file", `{"path":"early.txt","content":"x"}`)),
				fake.ToolCalls(call("p1", "exit_plan_mode", `{"plan":"`+thePlan+`"}`)),
				fake.ToolCalls(call("w2", "write_file", `{"path":"plan.txt","content":"done"}`)),
				fake.Text("finished"),
			)
			f := newFixture(t, model, "")
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModePlan, Plan: tc.plan})
			r := runTurn(t, s, "make plan.txt")

			if early := r.result(t, "w1"); !early.IsError || !strings.Contains(early.Content, "plan mode") || exists(f.path("early.txt")) {
				t.Errorf("a write before the plan: %q (error %v), want it refused in plan mode", early.Content, early.IsError)
			}
			if !strings.Contains(model.Requests()[0].System, strings.TrimSpace(plan.Prompt)) {
				t.Error("the request in plan mode lacks plan mode's instructions")
			}
			p := r.result(t, "p1")
			if stop := p.Meta[tools.MetaStop] == true; stop != tc.stop || !strings.Contains(p.Content, tc.says) {
				t.Errorf("exit_plan_mode's result %q (stop %v), want %q (stop %v)", p.Content, stop, tc.says, tc.stop)
			}
			if s.Mode() != tc.mode {
				t.Errorf("mode %q after the plan, want %q", s.Mode(), tc.mode)
			}
			if got := exists(f.path("plan.txt")); got != tc.written {
				t.Errorf("the write after the plan ran: %v, want %v", got, tc.written)
			}
		})
	}
}
