package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// funcTool is a tool whose behaviour a test supplies.
type funcTool struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (f funcTool) Definition() tools.Definition {
	return tools.Definition{
		Name:        f.name,
		Description: f.name + " does a thing.\n\nMore about it.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
		ReadOnly:    f.readOnly,
	}
}

func (f funcTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	args := call.Args
	return f.run(ctx, args)
}

func echo(name string, readOnly bool) funcTool {
	return funcTool{name, readOnly, func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: name + " got " + string(args)}, nil
	}}
}

// fixture is a loop over the fake provider, which records the requests.
type fixture struct {
	provider *fake.Provider
	loop     *loop.Loop
	conv     *conversation.Conversation
}

func newFixture(t *testing.T, cfg loop.Config, ts []tools.Tool, replies ...fake.Reply) fixture {
	t.Helper()
	return loopOver(t, cfg, ts, picker.ModePick, fake.New(replies...), "")
}

// loopOver is a fixture whose loop asks provider and offers ts in mode; the
// conversation starts with the system prompt system.
func loopOver(t *testing.T, cfg loop.Config, ts []tools.Tool, mode picker.Mode, provider *fake.Provider, system string) fixture {
	t.Helper()
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Catalog = picker.New(reg, mode)
	cfg.Provider = provider
	cfg.Model = "m"
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := cfg.Store.(conversation.Recorder)
	return fixture{provider, l, conversation.New(system, rec)}
}

// collect runs a turn and returns its events and the final Done.
func collect(ch <-chan loop.Event) ([]loop.Event, loop.Done) {
	var evs []loop.Event
	var done loop.Done
	for ev := range ch {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
		evs = append(evs, ev)
	}
	return evs, done
}

func resultsOf(msgs []providers.Message) []providers.ToolResult {
	var rs []providers.ToolResult
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				rs = append(rs, r)
			}
		}
	}
	return rs
}

// TestReadOnlyCallsRunConcurrently proves concurrency without timing: each
// call waits until both have started, which only happens if they overlap.
func TestReadOnlyCallsRunConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	both := make(chan struct{})
	go func() { wg.Wait(); close(both) }()
	barrier := funcTool{"look", true, func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		wg.Done()
		select {
		case <-both:
			return tools.Result{Content: "saw " + string(args)}, nil
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{barrier},
		fake.ToolCalls(
			fake.Call{ID: "1", Name: "look", Arguments: `{"x":"a"}`},
			fake.Call{ID: "2", Name: "look", Arguments: `{"x":"b"}`},
		).WithUsage(10, 5),
		fake.Text("done").WithUsage(10, 5),
	)
	// If the calls ran one after the other, each would wait for the other
	// forever; the deadline turns that hang into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, done := collect(f.loop.Run(ctx, f.conv, providers.UserText("go")))
	if done.Reason != loop.StopAnswered || done.Answer != "done" {
		t.Fatalf("done = %+v", done)
	}
	rs := resultsOf(f.conv.Messages())
	if len(rs) != 2 || rs[0].CallID != "1" || rs[0].Content != `saw {"x":"a"}` || rs[1].CallID != "2" {
		t.Errorf("results out of call order: %+v", rs)
	}
	if done.Steps != 2 || done.ToolCalls != 2 || done.Usage.InputTokens != 20 {
		t.Errorf("steps %d, tool calls %d, usage %+v", done.Steps, done.ToolCalls, done.Usage)
	}
	if got := f.conv.Messages()[0]; got.Role != providers.RoleUser || got.Text() != "go" {
		t.Errorf("first message of the turn should be the prompt: %+v", got)
	}
}

// TestApprovalIsAskedAboutEveryCall: the approval sees read-only calls
// too (the user's deny rules hold for every tool); one that allows them
// lets them run, and its refusal of the rest is their result.
func TestApprovalIsAskedAboutEveryCall(t *testing.T) {
	var asked []string
	approve := func(_ context.Context, req loop.Approval) loop.Decision {
		asked = append(asked, req.Call.Name)
		if req.Def.ReadOnly {
			return loop.Decision{Allow: true}
		}
		return loop.Decision{Reason: "not today"}
	}
	f := newFixture(t, loop.Config{Approve: approve}, []tools.Tool{echo("look", true), echo("write", false)},
		fake.ToolCalls(
			fake.Call{ID: "r", Name: "look", Arguments: `{}`},
			fake.Call{ID: "w", Name: "write", Arguments: `{}`},
		),
		fake.Text("ok"),
	)
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if !slices.Equal(asked, []string{"look", "write"}) {
		t.Errorf("approval asked for %v, want look and write", asked)
	}
	rs := resultsOf(f.conv.Messages())
	if rs[0].IsError || !rs[1].IsError || rs[1].Content != "not today" {
		t.Errorf("results %+v", rs)
	}
}

func TestToolFailureIsAResultAndTheTurnGoesOn(t *testing.T) {
	broken := funcTool{"broken", true, func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{}, errors.New("disk on fire")
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{broken},
		fake.ToolCalls(fake.Call{ID: "b", Name: "broken", Arguments: `{}`}),
		fake.Text("recovered"),
	)
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	rs := resultsOf(f.conv.Messages())
	if done.Answer != "recovered" || len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content, "disk on fire") {
		t.Errorf("done %+v", done)
	}
}

// In swap mode picks last for the session: the next turn's requests carry
// the picked tool in full, and their tools are byte-identical to the last
// request of the turn before, so the provider's prompt cache stays warm.
func TestPicksLastForTheSession(t *testing.T) {
	f := loopOver(t, loop.Config{}, []tools.Tool{echo("look", true), echo("other", true)}, picker.ModeSwap, fake.New(
		fake.ToolCalls(fake.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["look"]}`}),
		fake.Text("ok"),
		fake.Text("again"),
	), "")
	evs, _ := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	var changed *loop.ToolsetChanged
	for _, ev := range evs {
		if c, ok := ev.(loop.ToolsetChanged); ok {
			changed = &c
		}
	}
	if changed == nil || len(changed.Added) != 1 || changed.Added[0] != "look" {
		t.Errorf("ToolsetChanged = %+v", changed)
	}
	if got := f.conv.Picked(); len(got) != 1 || got[0] != "look" {
		t.Errorf("picked after the turn = %v, want [look]", got)
	}
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("next")))
	reqs := f.provider.Requests()
	tools := func(i int) string { b, _ := json.Marshal(reqs[i].Tools); return string(b) }
	if tools(0) == tools(1) {
		t.Errorf("the pick did not change the tools")
	}
	if tools(1) != tools(2) {
		t.Errorf("the next turn's tools differ from the last request's:\n%s\n%s", tools(1), tools(2))
	}
	if !strings.Contains(tools(2), `"x"`) {
		t.Errorf("the next turn does not carry look's schema: %s", tools(2))
	}
}

func TestStepLimit(t *testing.T) {
	f := newFixture(t, loop.Config{MaxSteps: 1}, []tools.Tool{echo("look", true)},
		fake.ToolCalls(fake.Call{ID: "a", Name: "look", Arguments: `{}`}),
	)
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopMaxSteps || !strings.Contains(done.Answer, "Stopped after 1 steps") {
		t.Errorf("done %+v", done)
	}
	if rs := resultsOf(f.conv.Messages()); len(rs) != 1 {
		t.Errorf("the last step's call must still be answered: %+v", rs)
	}
}

func TestCancelMidStreamKeepsPartialText(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f := newFixture(t, loop.Config{}, nil, fake.Text("partial text here").WithPieceSize(4).HoldAfterEvents(2, hold))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var text string
	var done loop.Done
	for ev := range f.loop.Run(ctx, f.conv, providers.UserText("go")) {
		switch ev := ev.(type) {
		case loop.TextDelta:
			text += ev.Text
			cancel() // the stream is held after its second delta
		case loop.Done:
			done = ev
		}
	}
	if done.Reason != loop.StopCancelled || !errors.Is(done.Err, context.Canceled) {
		t.Fatalf("done %+v", done)
	}
	if done.Answer == "" || !strings.HasPrefix("partial text here", done.Answer) || !strings.HasPrefix(done.Answer, text) {
		t.Errorf("partial answer %q (deltas seen %q)", done.Answer, text)
	}
}

func TestCancelDuringToolAnswersEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	blocking := funcTool{"wait", false, func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		cancel()
		<-ctx.Done()
		return tools.Result{Content: "stopped", IsError: true}, nil
	}}
	f := newFixture(t, loop.Config{}, []tools.Tool{blocking, echo("after", false)},
		fake.ToolCalls(
			fake.Call{ID: "w", Name: "wait", Arguments: `{}`},
			fake.Call{ID: "a", Name: "after", Arguments: `{}`},
		),
	)
	evs, done := collect(f.loop.Run(ctx, f.conv, providers.UserText("go")))
	started, finished := 0, 0
	for _, ev := range evs {
		switch ev.(type) {
		case loop.ToolCallStarted:
			started++
		case loop.ToolCallFinished:
			finished++
		}
	}
	if started != 2 || finished != 2 {
		t.Errorf("after cancellation %d calls started and %d finished, want 2 and 2", started, finished)
	}
	rs := resultsOf(f.conv.Messages())
	if done.Reason != loop.StopCancelled || len(rs) != 2 || !rs[1].IsError || !strings.Contains(rs[1].Content, "cancelled") {
		t.Errorf("done %+v, results %+v", done.Reason, rs)
	}
	if len(f.provider.Requests()) != 1 {
		t.Errorf("no request may follow a cancellation")
	}
}

func TestStreamCutIsAnErrorWithPartialText(t *testing.T) {
	// The connection breaks after "this wi" of "this will be cut".
	cut := fake.Text("this wi").WithPieceSize(2)
	cut.Err = providers.ErrStreamCut
	f := newFixture(t, loop.Config{}, nil, cut)
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopError || !errors.Is(done.Err, providers.ErrStreamCut) || done.Answer == "" {
		t.Errorf("done %+v", done)
	}
}

func TestHistoryIsSentAndSnapshotsStayUnchanged(t *testing.T) {
	f := newFixture(t, loop.Config{}, nil, fake.Text("second answer"))
	history := []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "first question"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "first answer"}}},
	}
	f.conv = conversation.Restore(conversation.State{System: "be brief", Messages: history}, nil)
	before := f.conv.Messages()
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("second question")))
	if n := len(f.conv.Messages()); n != 4 || len(before) != 2 {
		t.Fatalf("the conversation holds %d messages, the earlier snapshot %d; want 4 and 2", n, len(before))
	}
	req := f.provider.Requests()[0]
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, string(m.Role)+":"+m.Text())
	}
	want := "user:first question,assistant:first answer,user:second question"
	if req.System != "be brief" || strings.Join(roles, ",") != want {
		t.Errorf("sent system %q and %v, want be brief and %s", req.System, roles, want)
	}
}

// previewTool previews a change: a diff for "ok", a failure otherwise.
type previewTool struct{ funcTool }

func (p previewTool) Preview(_ context.Context, call tools.Call) (tools.Result, error) {
	args := call.Args
	if strings.Contains(string(args), "ok") {
		return tools.Result{Content: "would change", Meta: map[string]any{"diff": "+new line"}}, nil
	}
	return tools.Result{Content: "old_string not found", IsError: true}, nil
}

func TestApprovalSeesThePreviewAndAFailingPreviewAsksNothing(t *testing.T) {
	var previews []string
	approve := func(_ context.Context, req loop.Approval) loop.Decision {
		if req.Preview != nil {
			previews = append(previews, req.Preview.Meta["diff"].(string))
		}
		return loop.Decision{Allow: true}
	}
	ran := 0
	edit := previewTool{funcTool{"edit", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran++
		return tools.Result{Content: "edited"}, nil
	}}}
	f := newFixture(t, loop.Config{Approve: approve}, []tools.Tool{edit},
		fake.ToolCalls(
			fake.Call{ID: "a", Name: "edit", Arguments: `{"x":"ok"}`},
			fake.Call{ID: "b", Name: "edit", Arguments: `{"x":"bad"}`},
		),
		fake.Text("done"),
	)
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	rs := resultsOf(f.conv.Messages())
	if len(previews) != 1 || previews[0] != "+new line" {
		t.Errorf("approvals saw previews %v, want one diff", previews)
	}
	if ran != 1 || rs[0].Content != "edited" || !rs[1].IsError || rs[1].Content != "old_string not found" {
		t.Errorf("ran %d times; results %+v", ran, rs)
	}
}

// In pick mode a pick never changes the tools: every request of the
// session carries the same tools, the pick's result references the tool it
// loads, and a continued session keeps it loaded.
func TestPickModeKeepsTheToolsOfEveryRequest(t *testing.T) {
	f := newFixture(t, loop.Config{}, []tools.Tool{echo("look", true), echo("other", true)},
		fake.ToolCalls(fake.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["look"]}`}),
		fake.ToolCalls(fake.Call{ID: "c", Name: "look", Arguments: `{"x":"1"}`}),
		fake.Text("ok"),
		fake.Text("again"),
	)
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("next")))
	reqs := f.provider.Requests()
	first, _ := json.Marshal(reqs[0].Tools)
	for i, r := range reqs {
		if b, _ := json.Marshal(r.Tools); string(b) != string(first) {
			t.Errorf("request %d's tools differ from the first's:\n%s\n%s", i, first, b)
		}
	}
	for _, d := range reqs[0].Tools {
		if d.Deferred == (d.Name == "pick_tools") {
			t.Errorf("%s: deferred = %v", d.Name, d.Deferred)
		}
	}
	var refs []string
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok && r.Name == "pick_tools" {
				refs = r.References
			}
		}
	}
	if len(refs) != 1 || refs[0] != "look" {
		t.Errorf("the pick's result references %v, want [look]", refs)
	}
}
