package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// childEvents feeds the model two task calls' children: the first has
// read two files, written a line and runs grep; the second has only
// started.
func childEvents(d *driver) {
	m := d.m
	m.handleEvent(loop.ToolCallStarted{ID: "task_1", Name: "task", Summary: tools.Summary{Title: "find the parser"}})
	m.handleEvent(loop.ToolCallStarted{ID: "task_2", Name: "task", Summary: tools.Summary{Title: "find the printer"}})
	child := func(call, desc string, ev loop.Event) {
		se := loop.ChildEvent{ParentCallID: call, Description: desc, Event: ev, Start: ev == nil}
		m.handleEvent(loop.ToolProgress{ID: call, Name: "task", Detail: se})
	}
	child("task_1", "find the parser", nil)
	child("task_2", "find the printer", nil)
	d.clock = d.clock.Add(12 * time.Second)
	child("task_1", "find the parser", loop.StepStarted{})
	child("task_1", "find the parser", loop.ToolCallStarted{ID: "r1", Name: "read_file", Summary: tools.Summary{Title: "parse.go"}})
	child("task_1", "find the parser", loop.ToolCallFinished{ID: "r1", Name: "read_file"})
	child("task_1", "find the parser", loop.ToolCallStarted{ID: "r2", Name: "read_file", Summary: tools.Summary{Title: "missing.go"}})
	child("task_1", "find the parser", loop.ToolCallFinished{ID: "r2", Name: "read_file", IsError: true})
	child("task_1", "find the parser", loop.Usage{Total: providers.Usage{InputTokens: 3100, OutputTokens: 240}})
	child("task_1", "find the parser", loop.StepStarted{})
	child("task_1", "find the parser", loop.TextDelta{Text: "parse.go has the parser;\nnow its callers."})
	child("task_1", "find the parser", loop.ToolCallStarted{ID: "g1", Name: "grep", Summary: tools.Summary{Title: "Parse( in ."}})
	child("task_2", "find the printer", loop.StepStarted{})
}

// A running child is a block under its task call: its description, the
// tool it runs, how long it has run and its tokens; Ctrl+O expands the
// selected one to its steps (calls and text) and folds it again.
func TestRunningChildrenShowAsBlocksThatExpandToTheirSteps(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	childEvents(d)
	folded := d.screen()
	for _, want := range []string{"↳ find the parser · grep Parse( in . · 12s · 3.4k tokens", "ctrl+o shows its 4 steps",
		"↳ find the printer · thinking · 12s"} {
		if !strings.Contains(folded, want) {
			t.Errorf("folded screen lacks %q:\n%s", want, folded)
		}
	}
	if strings.Contains(folded, "parse.go has the parser") {
		t.Errorf("a folded child shows its steps:\n%s", folded)
	}
	requireGolden(t, "screen_children_folded_100x30", paneOf(folded))

	d.update(ctrlUp())
	d.update(ctrlUp()) // the first task call
	d.key("ctrl+o")
	expanded := d.screen()
	for _, want := range []string{"✓ read_file parse.go", "✗ read_file missing.go", "parse.go has the parser;", "now its callers.", "… grep Parse( in ."} {
		if !strings.Contains(expanded, want) {
			t.Errorf("expanded screen lacks %q:\n%s", want, expanded)
		}
	}
	requireGolden(t, "screen_children_expanded_100x30", paneOf(expanded))

	// The child's time goes on with the spinner.
	d.clock = d.clock.Add(5 * time.Second)
	d.m.spin(d.clock)
	if s := d.screen(); !strings.Contains(s, "· 17s ·") {
		t.Errorf("the elapsed time did not move on:\n%s", s)
	}
	// Finished, an expanded block keeps the steps above the answer; folded,
	// only the answer.
	d.m.handleEvent(loop.ToolCallFinished{ID: "task_1", Name: "task", Content: "The parser is parse.go:12."})
	if s := d.screen(); !strings.Contains(s, "✓ read_file parse.go") || !strings.Contains(s, "The parser is parse.go:12.") {
		t.Errorf("finished and expanded:\n%s", s)
	}
	d.key("ctrl+o")
	if s := d.screen(); strings.Contains(s, "✓ read_file parse.go") || !strings.Contains(s, "The parser is parse.go:12.") {
		t.Errorf("finished and folded:\n%s", s)
	}
}

// paneOf is the screen without its last lines (the input and the status
// bar, whose spinner moves with the wall clock).
func paneOf(screen string) string {
	lines := strings.Split(screen, "\n")
	return strings.Join(lines[:max(len(lines)-6, 0)], "\n")
}

// A child's block keeps at most childMaxSteps steps and counts the rest;
// a long text shows its first lines.
func TestChildBlockBoundsItsSteps(t *testing.T) {
	c := newChildView(loop.ChildEvent{Description: "busy"}, time.Time{})
	for i := range childMaxSteps + 5 {
		c.see(loop.ToolCallStarted{ID: fmt.Sprint(i), Name: "grep"})
		c.see(loop.ToolCallFinished{ID: fmt.Sprint(i), Name: "grep"})
	}
	lines := c.stepLines(goldenStyles(), 40)
	if len(lines) != childMaxSteps+1 || !strings.Contains(lines[len(lines)-1], "and 5 more steps") {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	c = newChildView(loop.ChildEvent{Description: "chatty"}, time.Time{})
	c.see(loop.TextDelta{Text: numbered(10, "line %d")})
	lines = c.stepLines(goldenStyles(), 40)
	if len(lines) != childTextShow+1 || !strings.Contains(lines[childTextShow], "+4 lines") {
		t.Errorf("text lines: %q", lines)
	}
}

// ctrlUp selects the previous tool block.
func ctrlUp() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModCtrl} }
