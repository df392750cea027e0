package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// callTool is a tool that keeps the tools.Call of each run and reports
// progress through it.
type callTool struct {
	funcTool
	mu    sync.Mutex
	calls []tools.Call
	// report, when not nil, is run with the call while the tool runs.
	report func(tools.Call)
}

func (c *callTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
	if c.report != nil {
		c.report(call)
	}
	return c.funcTool.Run(ctx, call)
}

func TestAGateDenialIsTheCallsResultAndTheToolNeverRuns(t *testing.T) {
	ran := false
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		return tools.Result{Content: "written"}, nil
	}}
	approved := false
	cfg := loop.Config{
		Gate: func(_ context.Context, c loop.GateCall) loop.GateDecision {
			return loop.GateDecision{Verdict: loop.GateDeny, Reason: "the hook says no: " + c.Def.Name, Why: "hook: test"}
		},
		Approve: func(context.Context, loop.Approval) loop.Decision { approved = true; return loop.Decision{Allow: true} },
	}
	f := newFixture(t, cfg, []tools.Tool{write}, fake.ToolCalls(fake.Call{ID: "w", Name: "write", Arguments: `{}`}), fake.Text("ok"))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopAnswered || ran || approved {
		t.Fatalf("done %v, tool ran %v, approval asked %v", done.Reason, ran, approved)
	}
	if rs := resultsOf(f.conv.Messages()); len(rs) != 1 || !rs[0].IsError || rs[0].Content != "the hook says no: write" {
		t.Errorf("results %+v", rs)
	}
	for _, ev := range evs {
		if fin, ok := ev.(loop.ToolCallFinished); ok && (fin.Meta["denied"] != true || fin.Meta["decision"] != "hook: test") {
			t.Errorf("finished event's meta %v, want denied by the hook", fin.Meta)
		}
	}
}

func TestAGateReplacesTheArgumentsAndTheyAreValidated(t *testing.T) {
	for _, tt := range []struct {
		name, args, want string
		isError          bool
	}{
		{"valid", `{"x":"safe"}`, `look got {"x":"safe"}`, false},
		{"invalid", `{"x":3}`, "new ones are not valid", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := loop.Config{Gate: func(context.Context, loop.GateCall) loop.GateDecision {
				return loop.GateDecision{Args: json.RawMessage(tt.args)}
			}}
			f := newFixture(t, cfg, []tools.Tool{echo("look", true)},
				fake.ToolCalls(fake.Call{ID: "r", Name: "look", Arguments: `{"x":"rm -rf /"}`}), fake.Text("ok"))
			evs, _ := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
			rs := resultsOf(f.conv.Messages())
			if len(rs) != 1 || rs[0].IsError != tt.isError || !strings.Contains(rs[0].Content, tt.want) {
				t.Fatalf("results %+v, want %q", rs, tt.want)
			}
			for _, ev := range evs {
				if st, ok := ev.(loop.ToolCallStarted); ok && !tt.isError && st.Arguments != tt.args {
					t.Errorf("the started call shows %s, want the replaced arguments", st.Arguments)
				}
			}
		})
	}
}

func TestAGateCanAskAboutAReadOnlyCallAndTheApprovalSeesIt(t *testing.T) {
	var got []loop.Approval
	cfg := loop.Config{
		Gate: func(context.Context, loop.GateCall) loop.GateDecision {
			return loop.GateDecision{Verdict: loop.GateAsk, Why: "hook: ask"}
		},
		Approve: func(_ context.Context, req loop.Approval) loop.Decision {
			got = append(got, req)
			return loop.Decision{Reason: "the person said no"}
		},
		Origin: loop.Origin{ParentCallID: "task_1", Label: "find the loader"},
	}
	f := newFixture(t, cfg, []tools.Tool{echo("look", true)}, fake.ToolCalls(fake.Call{ID: "r", Name: "look", Arguments: `{}`}), fake.Text("ok"))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if len(got) != 1 || got[0].Gate != loop.GateAsk || got[0].GateWhy != "hook: ask" || got[0].Origin.Label != "find the loader" {
		t.Fatalf("approvals %+v", got)
	}
	if rs := resultsOf(f.conv.Messages()); !rs[0].IsError || rs[0].Content != "the person said no" {
		t.Errorf("results %+v", rs)
	}
}

func TestBeforeStopSendsTheModelOnCountedAgainstTheStepLimit(t *testing.T) {
	var checks []loop.StopCheck
	cfg := loop.Config{BeforeStop: func(_ context.Context, s loop.StopCheck) string {
		checks = append(checks, s)
		if s.Active {
			return ""
		}
		return "the tests still fail: run them"
	}}
	f := newFixture(t, cfg, nil, fake.Text("done!"), fake.Text("now really done"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("fix it")))
	if done.Reason != loop.StopAnswered || done.Answer != "now really done" || done.Steps != 2 {
		t.Fatalf("done %+v", done)
	}
	if len(checks) != 2 || checks[0].Active || !checks[1].Active || checks[0].Answer != "done!" {
		t.Errorf("checks %+v", checks)
	}
	second := f.provider.Requests()[1]
	if last := second.Messages[len(second.Messages)-1]; last.Role != providers.RoleUser || last.Text() != "the tests still fail: run them" {
		t.Errorf("the second request ends with %+v", last)
	}

	// At the step limit the turn ends whatever the check says.
	limited := newFixture(t, loop.Config{MaxSteps: 1, BeforeStop: func(context.Context, loop.StopCheck) string { return "go on" }}, nil,
		fake.Text("done!"), fake.Text("never asked"))
	if _, done := collect(limited.loop.Run(context.Background(), limited.conv, providers.UserText("fix it"))); done.Reason != loop.StopMaxSteps {
		t.Errorf("at the step limit: %+v", done)
	}
	if n := len(limited.provider.Requests()); n != 1 {
		t.Errorf("%d requests at a step limit of 1", n)
	}
}

func TestPrepareChangesTheRequestNotTheConversation(t *testing.T) {
	var steps []int
	cfg := loop.Config{Prepare: func(_ context.Context, p loop.Preparing, req providers.Request) providers.Request {
		steps = append(steps, p.Step)
		req.System += "\n\nPlan mode is on."
		req.Messages = append(req.Messages, providers.UserText("<reminder>step</reminder>"))
		return req
	}}
	f := newFixture(t, cfg, []tools.Tool{echo("look", true)},
		fake.ToolCalls(fake.Call{ID: "r", Name: "look", Arguments: `{}`}), fake.Text("ok"))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	reqs := f.provider.Requests()
	if len(steps) != 2 || steps[0] != 1 || steps[1] != 2 || len(reqs) != 2 {
		t.Fatalf("prepared steps %v for %d requests", steps, len(reqs))
	}
	for _, req := range reqs {
		if !strings.HasSuffix(req.System, "Plan mode is on.") || req.Messages[len(req.Messages)-1].Text() != "<reminder>step</reminder>" {
			t.Errorf("request without the prepared additions: %q", req.System)
		}
	}
	for _, m := range f.conv.Messages() {
		if strings.Contains(m.Text(), "reminder") {
			t.Errorf("the reminder was stored in the conversation")
		}
	}
}

func TestToolsLearnTheirCallAndReportProgress(t *testing.T) {
	tool := &callTool{funcTool: echo("look", true)}
	tool.report = func(c tools.Call) {
		c.Report(tools.Progress{Text: "half way"})
	}
	f := newFixture(t, loop.Config{}, []tools.Tool{tool}, fake.ToolCalls(fake.Call{ID: "call_7", Name: "look", Arguments: `{"x":"y"}`}), fake.Text("ok"))
	evs, _ := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if len(tool.calls) != 1 || tool.calls[0].ID != "call_7" || string(tool.calls[0].Args) != `{"x":"y"}` {
		t.Fatalf("the tool saw %+v", tool.calls)
	}
	var order []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case loop.ToolCallStarted:
			order = append(order, "started")
		case loop.ToolProgress:
			order = append(order, "progress "+ev.ID+" "+ev.Text)
		case loop.ToolCallFinished:
			order = append(order, "finished")
		}
	}
	if strings.Join(order, ", ") != "started, progress call_7 half way, finished" {
		t.Errorf("events %v", order)
	}
}

func TestProgressAfterTheToolReturnedIsDropped(t *testing.T) {
	late := make(chan tools.Call, 1)
	tool := &callTool{funcTool: echo("look", true), report: func(c tools.Call) { late <- c }}
	f := newFixture(t, loop.Config{}, []tools.Tool{tool}, fake.ToolCalls(fake.Call{ID: "c", Name: "look", Arguments: `{}`}), fake.Text("ok"))
	evs, _ := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	(<-late).Report(tools.Progress{Text: "too late"}) // must neither block nor panic on the closed channel
	for _, ev := range evs {
		if _, ok := ev.(loop.ToolProgress); ok {
			t.Errorf("progress reported: %+v", ev)
		}
	}
}

func TestStartedEventsCarryHowToShowTheCall(t *testing.T) {
	shown := funcTool{"look", true, func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Content: "x"}, nil }}
	f := newFixture(t, loop.Config{}, []tools.Tool{summarized{shown}}, fake.ToolCalls(fake.Call{ID: "c", Name: "look", Arguments: `{"x":"main.go"}`}), fake.Text("ok"))
	evs, _ := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	for _, ev := range evs {
		if st, ok := ev.(loop.ToolCallStarted); ok {
			if st.Summary.Title != "main.go!" || st.Kind != tools.KindRead || st.Effects != tools.ReadsWorkspace {
				t.Errorf("started %+v", st)
			}
		}
		if fin, ok := ev.(loop.ToolCallFinished); ok && fin.Kind != tools.KindRead {
			t.Errorf("finished %+v", fin)
		}
	}
}

// summarized is a tool whose definition says how its calls read.
type summarized struct{ funcTool }

func (s summarized) Definition() tools.Definition {
	def := s.funcTool.Definition()
	def.Kind, def.Effects = tools.KindRead, tools.ReadsWorkspace
	def.Summarize = func(args string) tools.Summary {
		var a struct{ X string }
		json.Unmarshal([]byte(args), &a)
		return tools.Summary{Title: a.X + "!", Paths: []string{a.X}}
	}
	return def
}

func TestAfterCallSeesTheResultOfACallThatRanAndChangesIt(t *testing.T) {
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "written"}, nil
	}}
	var mu sync.Mutex
	var seen []string
	cfg := loop.Config{
		Gate: func(_ context.Context, c loop.GateCall) loop.GateDecision {
			if c.Call.ID == "denied" {
				return loop.GateDecision{Verdict: loop.GateDeny, Reason: "no"}
			}
			return loop.GateDecision{}
		},
		AfterCall: func(_ context.Context, c loop.AfterCall) tools.Result {
			mu.Lock()
			seen = append(seen, c.Call.ID+":"+c.Result.Content)
			mu.Unlock()
			c.Result.Content += "\nformatted by the hook"
			return c.Result
		},
	}
	f := newFixture(t, cfg, []tools.Tool{write}, fake.ToolCalls(fake.Call{ID: "ok", Name: "write", Arguments: `{}`},
		fake.Call{ID: "denied", Name: "write", Arguments: `{}`}), fake.Text("done"))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if strings.Join(seen, ",") != "ok:written" {
		t.Errorf("AfterCall saw %q, want only the call that ran", seen)
	}
	rs := resultsOf(f.conv.Messages())
	if len(rs) != 2 || rs[0].Content != "written\nformatted by the hook" || rs[1].Content != "no" {
		t.Errorf("results %+v", rs)
	}
}
