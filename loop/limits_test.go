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

// The answer of a turn whose response was cut and continued is the whole
// text, not only the continuation's.
func TestAContinuedAnswerIsWhole(t *testing.T) {
	cut := fake.Text("FIRST HALF of the answer, ")
	cut.Finish = providers.FinishLength
	f := newFixture(t, loop.Config{}, nil, cut, fake.Text("SECOND HALF of it."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("write it all")))
	if done.Reason != loop.StopAnswered || done.Answer != "FIRST HALF of the answer, SECOND HALF of it." {
		t.Errorf("done %+v", done)
	}
}

// A tool call the output limit cut is never run, also when the adapter
// completed its missing arguments as "{}"; a response left with nothing
// (only that call) is not stored as an empty assistant message.
func TestACutCallIsNeverRunNorStoredEmpty(t *testing.T) {
	ran := 0
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran++
		return tools.Result{Content: "written"}, nil
	}}
	cut := fake.ToolCalls(fake.Call{ID: "w", Name: "write", Arguments: `{}`})
	cut.Finish = providers.FinishLength
	cut.Usage = providers.Usage{InputTokens: 50, OutputTokens: 4096}
	f := newFixture(t, loop.Config{}, []tools.Tool{write}, cut, fake.Text("Done, in smaller pieces."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("write it")))
	if done.Reason != loop.StopAnswered || ran != 0 {
		t.Fatalf("done %+v; the cut call ran %d times", done, ran)
	}
	for i, m := range f.conv.Messages() {
		if len(m.Parts) == 0 {
			t.Errorf("message %d (%s) has no parts", i, m.Role)
		}
	}
	if u := f.conv.Usage(); u.OutputTokens != 4096 {
		t.Errorf("the cut response's usage is lost: %+v", u)
	}
}

// A summary the output limit cut is not taken: the conversation stays as it
// was, and the summary request's tokens still count in the session.
func TestASummaryCutByTheOutputLimitIsRefused(t *testing.T) {
	respond := model(2)
	f := measuredFixture(t, loop.Config{}, []tools.Tool{bulky(100)}, func(req providers.Request) fake.Reply {
		if req.ToolChoice == providers.ToolChoiceNone {
			r := fake.Text("1. Goal: look twice. 2. Decisions: none. 3. Files: a.go, b.go, c")
			r.Finish = providers.FinishLength
			return r
		}
		return respond(req)
	})
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look twice")))
	before, usage := len(f.conv.Messages()), f.conv.Usage()
	_, done := collect(f.loop.Compact(context.Background(), f.conv, ""))
	if done.Reason != loop.StopError || !strings.Contains(errText(done.Err), "cut off") {
		t.Errorf("done %+v", done)
	}
	if f.conv.Compactions() != 0 || len(f.conv.Messages()) != before {
		t.Errorf("a cut summary replaced the history")
	}
	if f.conv.Usage().InputTokens <= usage.InputTokens {
		t.Errorf("the refused summary request's tokens are not counted: %+v then %+v", usage, f.conv.Usage())
	}
}

// The summary request declares the conversation's tools (so that a
// provider whose history holds tool calls accepts it, and its prefix cache
// serves it) and forbids calling them.
func TestTheSummaryRequestDeclaresToolsAndForbidsCalls(t *testing.T) {
	f := measuredFixture(t, loop.Config{}, []tools.Tool{bulky(100)}, model(2))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look twice")))
	collect(f.loop.Compact(context.Background(), f.conv, ""))
	reqs := f.provider.Requests()
	last, summary := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if summary.ToolChoice != providers.ToolChoiceNone || len(summary.Tools) == 0 {
		t.Fatalf("the summary request has %d tools, tool choice %q", len(summary.Tools), summary.ToolChoice)
	}
	before, _ := json.Marshal(last.Tools)
	after, _ := json.Marshal(summary.Tools)
	if string(before) != string(after) || summary.System != last.System {
		t.Errorf("the summary request does not begin like the request before it")
	}
}

// The window keeps room for the response: no request carries more than the
// window less ReserveOutput.
func TestRequestsLeaveRoomForTheResponse(t *testing.T) {
	const window, reserve = 4000, 1500
	f := measuredFixture(t, loop.Config{Window: window, ReserveOutput: reserve, AutoCompact: 0.8, MaxSteps: 30},
		[]tools.Tool{bulky(1500)}, model(10))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look ten times")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	requestsFit(t, f.provider, window-reserve)
}

// With a tokenizer denser than 4 bytes a token (the server counts 2), the
// estimate follows the server's counts and no request goes over the window.
func TestADenserTokenizerNeverGetsARequestOverTheWindow(t *testing.T) {
	const window = 2000
	respond := model(12)
	provider := fake.NewFunc(func(req providers.Request) fake.Reply {
		r := respond(req)
		r.Usage.InputTokens = 2 * measured(req) // 2 bytes a token
		return r
	})
	f := loopOver(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bulky(700)}, "all", provider, "You are terse.")
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look a dozen times")))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	for i, r := range provider.Requests() {
		if n := 2 * measured(r); n > window {
			t.Errorf("request %d carries %d tokens, over the %d-token window", i+1, n, window)
		}
	}
}
