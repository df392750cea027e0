package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/internal/scripted"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/openai"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// bulky is a read-only tool whose result is size bytes.
func bulky(size int) funcTool {
	return funcTool{"look", true, func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat("x", size)}, nil
	}}
}

// model answers like a model in a long turn: a summary when asked without
// tools (counting the looks it summarises), a call of look until it has seen
// calls results in all, then an answer.
func model(calls int) func(scripted.ChatRequest) scripted.Reply {
	return func(c scripted.ChatRequest) scripted.Reply {
		seen := 0
		for _, m := range c.Messages {
			if m.Role == "tool" {
				seen++
			}
			var earlier int
			if _, err := fmt.Sscanf(afterWord(m.Text(), "Looks so far:"), "%d", &earlier); err == nil {
				seen += earlier
			}
		}
		if len(c.Tools) == 0 {
			return scripted.Text(fmt.Sprintf("Goal: look often. Looks so far: %d. Next step: look again.", seen))
		}
		if seen >= calls {
			return scripted.Text("All looked at.")
		}
		return scripted.ToolCalls(scripted.Call{ID: fmt.Sprintf("c%d", seen), Name: "look", Arguments: `{}`})
	}
}

// afterWord returns what follows word in s, or "".
func afterWord(s, word string) string {
	_, after, ok := strings.Cut(s, word)
	if !ok {
		return ""
	}
	return after
}

// measuredFixture is a loop over a server that answers with respond and
// reports prompt tokens as the request's size.
func measuredFixture(t *testing.T, cfg loop.Config, ts []tools.Tool, respond func(scripted.ChatRequest) scripted.Reply) fixture {
	t.Helper()
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: respond, MeasureUsage: true})
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Catalog = picker.New(reg, picker.ModeAll)
	cfg.Provider = openai.New(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	cfg.Model = "m"
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{srv, l, conversation.New("You are terse.", nil)}
}

// requestsFit fails the test when a request the server received is over
// the window, or a tool call in it has no result.
func requestsFit(t *testing.T, srv *scripted.Server, window int) {
	t.Helper()
	for i, r := range srv.Requests() {
		if n := scripted.MeasurePrompt(r.Body); n > window {
			t.Errorf("request %d is %d tokens, over the %d-token window", i+1, n, window)
		}
		open := map[string]bool{}
		for _, m := range r.Chat.Messages {
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
			delete(open, m.ToolCallID)
		}
		if len(open) > 0 {
			t.Errorf("request %d has tool calls without results: %v", i+1, open)
		}
	}
}

func TestATurnThatOutgrowsTheWindowCompactsAndFinishes(t *testing.T) {
	const window = 2000
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bulky(1500)}, model(12))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, "look a dozen times"))
	if done.Reason != loop.StopAnswered || done.Answer != "All looked at." {
		t.Fatalf("done %+v", done)
	}
	var compactions []loop.Compacted
	for _, ev := range evs {
		if c, ok := ev.(loop.Compacted); ok {
			compactions = append(compactions, c)
		}
	}
	if len(compactions) == 0 || f.conv.Compactions() != len(compactions) {
		t.Fatalf("%d compaction events, %d in the conversation; want at least one of each", len(compactions), f.conv.Compactions())
	}
	for _, c := range compactions {
		if c.AfterTokens >= c.BeforeTokens || c.BeforeTokens < 1600 || !strings.Contains(c.Summary, "Goal:") {
			t.Errorf("compaction %+v", c)
		}
	}
	requestsFit(t, f.srv, window)
	var summaryRequests int
	for _, r := range f.srv.Requests() {
		if len(r.Chat.Tools) == 0 {
			summaryRequests++
			last := r.Chat.Messages[len(r.Chat.Messages)-1]
			if last.Role != "user" || !strings.Contains(last.Text(), "Next step") {
				t.Errorf("the summary request ends with %s %q, want the summary prompt", last.Role, last.Text())
			}
		}
	}
	if summaryRequests != len(compactions) {
		t.Errorf("%d summary requests for %d compactions", summaryRequests, len(compactions))
	}
	msgs := f.conv.Messages()
	if !strings.HasPrefix(msgs[0].Text(), conversation.SummaryPrefix) || msgs[len(msgs)-1].Text() != "All looked at." {
		t.Errorf("the conversation should start with the summary and end with the answer: %q ... %q", msgs[0].Text(), msgs[len(msgs)-1].Text())
	}
}

func TestACompactionThatCannotFreeEnoughStopsTheTurn(t *testing.T) {
	const window = 2000
	// One result of 7,000 bytes (1,750 tokens) fills the window by itself.
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8}, []tools.Tool{bulky(7000)}, model(3))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "look"))
	if done.Reason != loop.StopContextFull || !strings.Contains(errText(done.Err), "new session") {
		t.Fatalf("done %+v", done)
	}
	summaries := 0
	for _, r := range f.srv.Requests() {
		if len(r.Chat.Tools) == 0 {
			summaries++
		}
	}
	if summaries > 1 {
		t.Errorf("%d summary requests: compaction must not loop", summaries)
	}
	requestsFit(t, f.srv, window)
}

func TestWithoutAutoCompactARequestOverTheWindowIsNotSent(t *testing.T) {
	const window = 2000
	f := measuredFixture(t, loop.Config{Window: window}, []tools.Tool{bulky(3000)}, model(5))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "look"))
	if done.Reason != loop.StopContextFull || !strings.Contains(errText(done.Err), "/compact") {
		t.Fatalf("done %+v", done)
	}
	requestsFit(t, f.srv, window)
	if n := len(f.srv.Requests()); n < 2 {
		t.Errorf("only %d requests; the turn should have run until the window was full", n)
	}
}

func TestCompactOnRequestKeepsTheNewestExchange(t *testing.T) {
	f := measuredFixture(t, loop.Config{}, []tools.Tool{bulky(100)}, model(2))
	collect(f.loop.Run(context.Background(), f.conv, "look twice"))
	before := f.conv.Messages()
	evs, done := collect(f.loop.Compact(context.Background(), f.conv, "keep the file names"))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	after := f.conv.Messages()
	if len(after) != 2 || !strings.HasPrefix(after[0].Text(), conversation.SummaryPrefix) || after[1].Text() != before[len(before)-1].Text() {
		t.Errorf("after /compact the conversation is %d messages: %+v", len(after), after)
	}
	reqs := f.srv.Requests()
	if last := reqs[len(reqs)-1].Chat.Messages; !strings.Contains(last[len(last)-1].Text(), "keep the file names") {
		t.Errorf("the user's instructions are not in the summary request")
	}
	var sawStart bool
	for _, ev := range evs {
		if c, ok := ev.(loop.Compacting); ok && !c.Auto {
			sawStart = true
		}
	}
	if !sawStart {
		t.Errorf("no Compacting event")
	}
	// The next turn sends the summary, not the compacted messages.
	collect(f.loop.Run(context.Background(), f.conv, "and now?"))
	reqs = f.srv.Requests()
	sent := reqs[len(reqs)-1].Chat.Messages
	if len(sent) != 4 || !strings.Contains(sent[1].Text(), "compacted") || sent[3].Text() != "and now?" {
		t.Errorf("the next request carries %d messages, want system, summary, the kept answer, the prompt", len(sent))
	}
}

func TestACutToolCallIsNotRunAndTheModelContinues(t *testing.T) {
	ran := 0
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran++
		return tools.Result{Content: "written"}, nil
	}}
	cut := scripted.ToolCalls(scripted.Call{ID: "w", Name: "write", Arguments: `{"x":"a very long conte`})
	cut.Text, cut.Finish = "Writing the file.", "length"
	f := newFixture(t, loop.Config{}, []tools.Tool{write}, cut, scripted.Text("Done, in smaller pieces."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "write it"))
	if done.Reason != loop.StopAnswered || ran != 0 {
		t.Fatalf("done %+v; the cut call ran %d times", done, ran)
	}
	second := f.srv.Requests()[1].Chat.Messages
	if last := second[len(second)-1]; last.Role != "user" || !strings.Contains(last.Text(), "cut off by the output token limit") {
		t.Errorf("the request after a cut ends with %s %q", last.Role, last.Text())
	}
	for _, m := range second {
		if len(m.ToolCalls) > 0 {
			t.Errorf("the cut call was sent back: %+v", m.ToolCalls)
		}
	}
}

func TestResponsesCutThreeTimesInARowStopTheTurn(t *testing.T) {
	cut := scripted.Text("and so on and so on")
	cut.Finish = "length"
	f := newFixture(t, loop.Config{}, nil, cut, cut, cut, scripted.Text("never asked for"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "go"))
	if done.Reason != loop.StopMaxTokens || !strings.Contains(done.Answer, "output limit") || done.Err == nil {
		t.Fatalf("done %+v", done)
	}
	if n := len(f.srv.Requests()); n != loop.MaxContinuations+1 {
		t.Errorf("%d requests, want %d", n, loop.MaxContinuations+1)
	}
}

func TestAFailedSummaryEndsTheTurnWithTheConversationIntact(t *testing.T) {
	const window = 2000
	respond := model(12)
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bulky(1500)},
		func(c scripted.ChatRequest) scripted.Reply {
			if len(c.Tools) == 0 {
				return scripted.Text("summary that will be cut").CutAfter(2)
			}
			return respond(c)
		})
	_, done := collect(f.loop.Run(context.Background(), f.conv, "look a dozen times"))
	if done.Reason != loop.StopError || !errors.Is(done.Err, providers.ErrStreamCut) {
		t.Fatalf("done %+v", done)
	}
	if f.conv.Compactions() != 0 || strings.HasPrefix(f.conv.Messages()[0].Text(), conversation.SummaryPrefix) {
		t.Errorf("a failed summary must leave the conversation as it was")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// bigSchema is look with a long description: tool definitions that take a
// large share of a small window.
type bigSchema struct{ funcTool }

func (b bigSchema) Definition() tools.Definition {
	d := b.funcTool.Definition()
	d.Description += "\n\n" + strings.Repeat("A long paragraph about looking. ", 150)
	return d
}

func TestCompactionWorksWhenToolsTakeAQuarterOfTheWindow(t *testing.T) {
	const window = 4400 // the tools take about 1,200 tokens of it
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bigSchema{bulky(1500)}}, model(8))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "look eight times"))
	if done.Reason != loop.StopAnswered || f.conv.Compactions() == 0 {
		t.Fatalf("done %+v after %d compactions", done, f.conv.Compactions())
	}
	requestsFit(t, f.srv, window)
}

// A paused response (Anthropic's pause_turn) is sent back so the model goes
// on; a refusal ends the turn with its own stop reason.
func TestPausedResponsesGoOnAndRefusalsStop(t *testing.T) {
	paused := scripted.Text("Searching the web")
	paused.Finish = "pause_turn"
	f := newFixture(t, loop.Config{}, nil, paused, scripted.Text("Found it."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, "go"))
	if done.Reason != loop.StopAnswered || done.Answer != "Found it." || done.Steps != 2 {
		t.Errorf("after a pause: done %+v", done)
	}
	refusal := scripted.Text("")
	refusal.Finish = "content_filter"
	f = newFixture(t, loop.Config{}, nil, refusal)
	_, done = collect(f.loop.Run(context.Background(), f.conv, "go"))
	if done.Reason != loop.StopRefused || done.Err == nil {
		t.Errorf("after a refusal: done %+v", done)
	}
}
