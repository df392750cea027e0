package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agent-dev/agent/loop"
)

// Bounds of what a child's block keeps of its steps.
const (
	childMaxSteps = 300  // steps kept; later ones are only counted
	childTextKeep = 4000 // bytes kept of one step's text
	childTextShow = 6    // lines of one step's text an expanded block shows
)

// childStep is one step of a subagent as its block lists it: a tool call
// (with its state) or the text the child wrote.
type childStep struct {
	call  bool
	text  string // the call's name and main argument, or the text written
	state toolState
}

// childView is a running subagent as the block of the task call that
// started it shows it: a line with its description, the tool it runs,
// how long it has run and its tokens so far; expanded (Ctrl+O), its steps
// (the tool calls and the text it wrote) above that line. It is fed the
// child's events (loop.ChildEvent) in order.
type childView struct {
	description string
	agent       string
	tool        string // the call running now, as its title says; "" between calls
	start       time.Time
	elapsed     time.Duration
	tokens      int
	// streamed estimates the tokens of the text and reasoning streamed
	// since the last usage report (4 bytes a token), so that the count
	// moves while the child writes.
	streamed int
	writing  bool // the child streams its text (not reasoning, not a call)
	done     bool
	reason   loop.StopReason // how it ended, once done

	steps   []childStep
	dropped int            // steps not kept (past childMaxSteps)
	calls   map[string]int // index in steps of each call by id
	textAt  int            // index in steps of the text being streamed; -1 none
}

// newChildView returns the view of the child an event comes from, started
// at now.
func newChildView(se loop.ChildEvent, now time.Time) *childView {
	return &childView{description: se.Description, agent: se.Agent, start: now, calls: map[string]int{}, textAt: -1}
}

// add keeps a step, or counts it past childMaxSteps; it returns its index
// or -1.
func (c *childView) add(s childStep) int {
	if len(c.steps) >= childMaxSteps {
		c.dropped++
		return -1
	}
	c.steps = append(c.steps, s)
	return len(c.steps) - 1
}

// see takes one of the child's loop events.
func (c *childView) see(ev loop.Event) {
	switch ev := ev.(type) {
	case loop.StepStarted:
		c.textAt, c.writing = -1, false
	case loop.ReasoningDelta:
		c.streamed += len(ev.Text)
		c.writing = false
	case loop.TextDelta:
		c.streamed += len(ev.Text)
		c.writing = true
		if c.textAt < 0 {
			c.textAt = c.add(childStep{})
			if c.textAt < 0 {
				return
			}
		}
		if s := &c.steps[c.textAt]; len(s.text) < childTextKeep {
			s.text += ev.Text
		}
	case loop.ToolCallStarted:
		title := ev.Name
		if ev.Summary.Title != "" {
			title += " " + oneLine(ev.Summary.Title)
		}
		c.tool, c.textAt, c.writing = title, -1, false
		if i := c.add(childStep{call: true, text: title}); i >= 0 {
			c.calls[ev.ID] = i
		}
	case loop.ToolCallFinished:
		c.tool = ""
		if i, ok := c.calls[ev.ID]; ok {
			c.steps[i].state = toolOK
			if ev.IsError {
				c.steps[i].state = toolFailed
			}
			delete(c.calls, ev.ID)
		}
	case loop.Retry:
		if ev.Discarded {
			c.discardText()
		}
	case loop.FellBack:
		if ev.Discarded {
			c.discardText()
		}
		c.textAt = -1
		c.add(childStep{text: fmt.Sprintf("%s failed after its retries (%s): goes on with %s", ev.From, ev.Err, ev.To)})
	case loop.Usage:
		c.tokens, c.streamed = ev.Total.InputTokens+ev.Total.OutputTokens, 0
	case loop.Done:
		c.done, c.tool, c.writing, c.reason = true, "", false, ev.Reason
		c.tokens, c.streamed = ev.Usage.InputTokens+ev.Usage.OutputTokens, 0
	}
}

// discardText drops the text the step streamed so far: a retry or a
// fallback voided it, and the answer that stands streams after.
func (c *childView) discardText() {
	if c.textAt < 0 {
		return
	}
	if c.textAt == len(c.steps)-1 {
		c.steps = c.steps[:c.textAt]
	} else {
		c.steps[c.textAt].text = ""
	}
	c.textAt = -1
}

// status is the child's line: description (and agent), the tool it runs,
// elapsed time, tokens so far.
func (c *childView) status() string {
	parts := []string{c.description}
	if c.agent != "" {
		parts[0] += " (" + c.agent + ")"
	}
	switch {
	case c.tool != "":
		parts = append(parts, c.tool)
	case c.writing:
		parts = append(parts, "writing")
	case !c.done:
		parts = append(parts, "thinking")
	}
	parts = append(parts, formatElapsed(c.elapsed))
	if n := c.tokens + c.streamed/4; n > 0 {
		parts = append(parts, formatTokens(n)+" tokens")
	}
	return "↳ " + strings.Join(parts, " · ")
}

// stepLines are the child's steps at width, one line a call and up to
// childTextShow lines a text.
func (c *childView) stepLines(st *styles, width int) []string {
	var lines []string
	if c.dropped > 0 && len(c.steps) == 0 {
		return nil
	}
	for _, s := range c.steps {
		if s.call {
			icon := "…"
			switch s.state {
			case toolOK:
				icon = "✓"
			case toolFailed:
				icon = "✗"
			}
			lines = append(lines, st.ToolArg.Render(cutTo(icon+" "+s.text, width)))
			continue
		}
		out, total := outputLines(s.text, childTextShow)
		for _, l := range out {
			lines = append(lines, st.ToolOutput.Render(cutTo("  "+l, width)))
		}
		if total > len(out) {
			lines = append(lines, st.Dim.Render(cutTo(fmt.Sprintf("  … +%d %s", total-len(out), plural(total-len(out), "line", "lines")), width)))
		}
	}
	if c.dropped > 0 {
		lines = append(lines, st.Dim.Render(cutTo(fmt.Sprintf("… and %d more %s", c.dropped, plural(c.dropped, "step", "steps")), width)))
	}
	return lines
}

// runningLines are a running child's block body at width: its steps when
// expanded, then its status line; folded, the status line and how to see
// the steps.
func (c *childView) runningLines(st *styles, width int, expanded bool) []string {
	var lines []string
	if expanded {
		lines = c.stepLines(st, width)
	}
	lines = append(lines, st.Dim.Render(cutTo(c.status(), width)))
	if n := len(c.steps) + c.dropped; !expanded && n > 0 {
		lines = append(lines, st.Dim.Render(cutTo(fmt.Sprintf("ctrl+o shows its %d %s", n, plural(n, "step", "steps")), width)))
	}
	return lines
}

// stopped is how the child ended when it did not answer ("cancelled",
// "step limit", "failed"); "" while it runs or when it answered.
func (c *childView) stopped() string {
	switch {
	case !c.done || c.reason == loop.StopAnswered:
		return ""
	case c.reason == loop.StopCancelled:
		return "cancelled"
	case c.reason == loop.StopMaxSteps:
		return "step limit"
	}
	return "failed"
}
