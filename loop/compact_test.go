package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
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
func model(calls int) func(providers.Request) fake.Reply {
	return func(req providers.Request) fake.Reply {
		seen := len(resultsOf(req.Messages))
		for _, m := range req.Messages {
			var earlier int
			if _, err := fmt.Sscanf(afterWord(m.Text(), "Looks so far:"), "%d", &earlier); err == nil {
				seen += earlier
			}
		}
		if req.ToolChoice == providers.ToolChoiceNone {
			return fake.Text(fmt.Sprintf("Goal: look often. Looks so far: %d. Next step: look again.", seen))
		}
		if seen >= calls {
			return fake.Text("All looked at.")
		}
		return fake.ToolCalls(fake.Call{ID: fmt.Sprintf("c%d", seen), Name: "look", Arguments: `{}`})
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

// measuredFixture is a loop over a model that answers with respond and
// reports as input tokens the request's size (measured), as a server's
// usage does: the loop calibrates its estimates with it.
func measuredFixture(t *testing.T, cfg loop.Config, ts []tools.Tool, respond func(providers.Request) fake.Reply) fixture {
	t.Helper()
	provider := fake.NewFunc(func(req providers.Request) fake.Reply {
		r := respond(req)
		r.Usage.InputTokens = measured(req)
		return r
	})
	return loopOver(t, cfg, ts, picker.ModeAll, provider, "You are terse.")
}

// measured is the input tokens of req: its content in bytes at
// conversation.BytesPerToken.
func measured(req providers.Request) int {
	return conversation.Tokens(conversation.SizeOf(req).Total())
}

// requestsFit fails the test when a request the model received is over the
// window, or a tool call in it has no result.
func requestsFit(t *testing.T, provider *fake.Provider, window int) {
	t.Helper()
	for i, r := range provider.Requests() {
		if n := measured(r); n > window {
			t.Errorf("request %d is %d tokens, over the %d-token window", i+1, n, window)
		}
		open := map[string]bool{}
		for _, m := range r.Messages {
			for _, p := range m.Parts {
				switch p := p.(type) {
				case providers.ToolCall:
					open[p.ID] = true
				case providers.ToolResult:
					delete(open, p.CallID)
				}
			}
		}
		if len(open) > 0 {
			t.Errorf("request %d has tool calls without results: %v", i+1, open)
		}
	}
}

func TestATurnThatOutgrowsTheWindowCompactsAndFinishes(t *testing.T) {
	const window = 2000
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bulky(1500)}, model(12))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look a dozen times")))
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
	requestsFit(t, f.provider, window)
	var summaryRequests int
	for _, r := range f.provider.Requests() {
		if r.ToolChoice == providers.ToolChoiceNone {
			summaryRequests++
			last := r.Messages[len(r.Messages)-1]
			if last.Role != providers.RoleUser || !strings.Contains(last.Text(), "Next step") {
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
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look")))
	if done.Reason != loop.StopContextFull || !strings.Contains(errText(done.Err), "new session") {
		t.Fatalf("done %+v", done)
	}
	summaries := 0
	for _, r := range f.provider.Requests() {
		if r.ToolChoice == providers.ToolChoiceNone {
			summaries++
		}
	}
	if summaries > 1 {
		t.Errorf("%d summary requests: compaction must not loop", summaries)
	}
	requestsFit(t, f.provider, window)
}

func TestWithoutAutoCompactARequestOverTheWindowIsNotSent(t *testing.T) {
	const window = 2000
	f := measuredFixture(t, loop.Config{Window: window}, []tools.Tool{bulky(3000)}, model(5))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look")))
	if done.Reason != loop.StopContextFull || !strings.Contains(errText(done.Err), "/compact") {
		t.Fatalf("done %+v", done)
	}
	requestsFit(t, f.provider, window)
	if n := len(f.provider.Requests()); n < 2 {
		t.Errorf("only %d requests; the turn should have run until the window was full", n)
	}
}

func TestCompactOnRequestKeepsTheNewestExchange(t *testing.T) {
	f := measuredFixture(t, loop.Config{}, []tools.Tool{bulky(100)}, model(2))
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look twice")))
	before := f.conv.Messages()
	evs, done := collect(f.loop.Compact(context.Background(), f.conv, "keep the file names"))
	if done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	after := f.conv.Messages()
	if len(after) != 2 || !strings.HasPrefix(after[0].Text(), conversation.SummaryPrefix) || after[1].Text() != before[len(before)-1].Text() {
		t.Errorf("after /compact the conversation is %d messages: %+v", len(after), after)
	}
	reqs := f.provider.Requests()
	if last := reqs[len(reqs)-1].Messages; !strings.Contains(last[len(last)-1].Text(), "keep the file names") {
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
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("and now?")))
	reqs = f.provider.Requests()
	next := reqs[len(reqs)-1]
	sent := next.Messages
	if next.System != "You are terse." || len(sent) != 3 || !strings.Contains(sent[0].Text(), "compacted") || sent[2].Text() != "and now?" {
		t.Errorf("the next request carries system %q and %d messages, want the system prompt and the summary, the kept answer, the prompt", next.System, len(sent))
	}
}

func TestACutToolCallIsNotRunAndTheModelContinues(t *testing.T) {
	ran := 0
	write := funcTool{"write", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran++
		return tools.Result{Content: "written"}, nil
	}}
	cut := fake.ToolCalls(fake.Call{ID: "w", Name: "write", Arguments: `{"x":"a very long conte`})
	cut.Text, cut.Finish = "Writing the file.", providers.FinishLength
	f := newFixture(t, loop.Config{}, []tools.Tool{write}, cut, fake.Text("Done, in smaller pieces."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("write it")))
	if done.Reason != loop.StopAnswered || ran != 0 {
		t.Fatalf("done %+v; the cut call ran %d times", done, ran)
	}
	second := f.provider.Requests()[1].Messages
	if last := second[len(second)-1]; last.Role != providers.RoleUser || !strings.Contains(last.Text(), "cut off by the output token limit") {
		t.Errorf("the request after a cut ends with %s %q", last.Role, last.Text())
	}
	for _, m := range second {
		if calls := m.ToolCalls(); len(calls) > 0 {
			t.Errorf("the cut call was sent back: %+v", calls)
		}
	}
}

func TestResponsesCutThreeTimesInARowStopTheTurn(t *testing.T) {
	cut := fake.Text("and so on and so on")
	cut.Finish = providers.FinishLength
	f := newFixture(t, loop.Config{}, nil, cut, cut, cut, fake.Text("never asked for"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopMaxTokens || !strings.Contains(done.Answer, "output limit") || done.Err == nil {
		t.Fatalf("done %+v", done)
	}
	if n := len(f.provider.Requests()); n != loop.MaxContinuations+1 {
		t.Errorf("%d requests, want %d", n, loop.MaxContinuations+1)
	}
}

func TestAFailedSummaryEndsTheTurnWithTheConversationIntact(t *testing.T) {
	const window = 2000
	respond := model(12)
	f := measuredFixture(t, loop.Config{Window: window, AutoCompact: 0.8, MaxSteps: 40}, []tools.Tool{bulky(1500)},
		func(req providers.Request) fake.Reply {
			if req.ToolChoice == providers.ToolChoiceNone {
				// The connection breaks after "summ" of "summary that will be cut".
				return fake.Reply{Text: "summ", Err: providers.ErrStreamCut}
			}
			return respond(req)
		})
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look a dozen times")))
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
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look eight times")))
	if done.Reason != loop.StopAnswered || f.conv.Compactions() == 0 {
		t.Fatalf("done %+v after %d compactions", done, f.conv.Compactions())
	}
	requestsFit(t, f.provider, window)
}

// A paused response (Anthropic's pause_turn) is sent back so the model goes
// on; a refusal ends the turn with its own stop reason.
func TestPausedResponsesGoOnAndRefusalsStop(t *testing.T) {
	paused := fake.Text("Searching the web")
	paused.Finish = providers.FinishPause
	f := newFixture(t, loop.Config{}, nil, paused, fake.Text("Found it."))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopAnswered || done.Answer != "Searching the webFound it." || done.Steps != 2 {
		t.Errorf("after a pause: done %+v", done)
	}
	refusal := fake.Text("")
	refusal.Finish = providers.FinishContentFilter
	f = newFixture(t, loop.Config{}, nil, refusal)
	_, done = collect(f.loop.Run(context.Background(), f.conv, providers.UserText("go")))
	if done.Reason != loop.StopRefused || done.Err == nil {
		t.Errorf("after a refusal: done %+v", done)
	}
}

// AfterCompact hears a compaction once it is saved (a PostCompact hook),
// after its Compacted event; a compaction that fails is not heard.
func TestAfterCompactHearsASavedCompaction(t *testing.T) {
	var heard []loop.CompactEnd
	var sawCompacted bool
	cfg := loop.Config{AfterCompact: func(_ context.Context, c loop.CompactEnd) { heard = append(heard, c) }}
	f := measuredFixture(t, cfg, []tools.Tool{bulky(100)}, model(2))
	collect(f.loop.Compact(context.Background(), f.conv, ""))
	if len(heard) != 0 {
		t.Fatalf("heard %+v with nothing to compact", heard)
	}
	collect(f.loop.Run(context.Background(), f.conv, providers.UserText("look twice")))
	evs, done := collect(f.loop.Compact(context.Background(), f.conv, ""))
	for _, ev := range evs {
		_, ok := ev.(loop.Compacted)
		sawCompacted = sawCompacted || ok
	}
	if done.Reason != loop.StopAnswered || !sawCompacted || len(heard) != 1 || heard[0].Auto {
		t.Fatalf("done %+v, compacted %v, heard %+v", done, sawCompacted, heard)
	}
}
