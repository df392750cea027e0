package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// A child writing its answer says so (not "thinking"), and its token count
// moves while the text streams, before the step's usage arrives.
func TestAChildWritingItsAnswerSaysSoAndCountsAsItStreams(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	m := d.m
	m.handleEvent(loop.ToolCallStarted{ID: "task_1", Name: "task", Summary: tools.Summary{Title: "sum up"}})
	child := func(ev loop.Event) {
		m.handleEvent(loop.ToolProgress{ID: "task_1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "task_1", Description: "sum up", Event: ev, Start: ev == nil}})
	}
	child(nil)
	child(loop.StepStarted{Step: 1})
	child(loop.Usage{Total: providers.Usage{InputTokens: 2000, OutputTokens: 0}})
	child(loop.StepStarted{Step: 2})
	if s := d.screen(); !strings.Contains(s, "sum up · thinking") || !strings.Contains(s, "2k tokens") {
		t.Fatalf("before the answer:\n%s", s)
	}
	child(loop.TextDelta{Text: strings.Repeat("The answer goes on. ", 100)}) // 2000 bytes, about 500 tokens
	s := d.screen()
	if !strings.Contains(s, "sum up · writing") || strings.Contains(s, "thinking") {
		t.Errorf("a child writing is not labelled writing:\n%s", s)
	}
	if !strings.Contains(s, "2.5k tokens") {
		t.Errorf("the token count did not move as the child wrote:\n%s", s)
	}
}

// A cancelled child's task block is no success: ✗ and "cancelled",
// although the model reads what it found.
func TestACancelledChildIsNoSuccess(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	m := d.m
	m.handleEvent(loop.ToolCallStarted{ID: "task_1", Name: "task", Summary: tools.Summary{Title: "look around"}})
	child := func(ev loop.Event) {
		m.handleEvent(loop.ToolProgress{ID: "task_1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "task_1", Description: "look around", Event: ev, Start: ev == nil}})
	}
	child(nil)
	child(loop.Done{Reason: loop.StopCancelled})
	m.handleEvent(loop.ToolCallFinished{ID: "task_1", Name: "task", Content: "The subagent did not finish (it was cancelled). What it found so far: ..."})
	head := strings.Split(strings.TrimSpace(d.screen()), "\n")[0]
	if !strings.Contains(head, "✗") || strings.Contains(head, "✓") || !strings.Contains(head, "cancelled") {
		t.Errorf("the task's header: %q", head)
	}
}

// A child's command asked about in the session's pane carries the child's
// label, asked and answered.
func TestAChildsQuestionCarriesItsLabel(t *testing.T) {
	approver := NewApprover()
	d := newDriver(t, config(t, fake.New(), t.TempDir(), approver))
	go approver.Ask(t.Context(), Question{Call: providers.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"make test"}`},
		Origin: "run the tests", Commands: true, Summary: tools.Summary{Title: "make test", Full: "make test"}})
	d.untilShows("run the tests asks")
	d.m.handleEvent(loop.ToolProgress{ID: "task_1", Name: "task", Detail: loop.ChildEvent{ParentCallID: "task_1", Description: "run the tests",
		Event: loop.ToolCallFinished{ID: "c1", Name: "bash", Content: "ok", Meta: map[string]any{tools.MetaDenied: true}, IsError: true}}})
	if !strings.Contains(d.screen(), "↳ run the tests › bash make test") {
		t.Fatalf("the answered block lost its label:\n%s", d.screen())
	}
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, "bash") && strings.Contains(l, "make test") && !strings.Contains(l, "↳ run the tests › bash") {
			t.Errorf("the child's block has no label: %q\n%s", l, d.screen())
		}
	}
}

// A subagent that falls back says so in its block's steps, and the half
// answer its failed model wrote is gone from them (the fallback's stands).
func TestASubagentsFallbackShowsInItsSteps(t *testing.T) {
	c := newChildView(loop.ChildEvent{Description: "look"}, time.Now())
	for _, ev := range []loop.Event{
		loop.StepStarted{Step: 1},
		loop.TextDelta{Text: "HALF ANSWER"},
		loop.FellBack{From: "big", To: "small", Err: "the model server answered HTTP 529: Overloaded", Discarded: true},
		loop.TextDelta{Text: "WHOLE ANSWER"},
	} {
		c.see(ev)
	}
	got := ansi.Strip(strings.Join(c.stepLines(newStyles(true), 100), "\n"))
	if !strings.Contains(got, "big failed after its retries") || !strings.Contains(got, "goes on with small") ||
		strings.Contains(got, "HALF") || !strings.Contains(got, "WHOLE ANSWER") {
		t.Errorf("the child's steps:\n%s", got)
	}
}
