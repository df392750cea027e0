package subagent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// watch follows a child's events: it forwards each to the parent's call as
// progress and keeps what the result needs.
type watch struct {
	spec    Spec
	session string
	call    tools.Call
	model   string // the model the child runs on

	mu       sync.Mutex
	step     strings.Builder // the current step's text
	lastText string          // the last step's text that had any
	tool     string          // the tool running now, as its title says
	read     []string        // files read, in order, once each
	usage    providers.Usage
	done     loop.Done
	finished bool
	start    time.Time
	steps    []string // the child's calls so far, one line each
	running  map[string]int
}

// shownSteps is how many of the child's calls its progress shows.
const shownSteps = 4

// report sends ev to the parent's call as progress (its Detail), with the
// child's identity filled in.
func (w *watch) report(ev loop.ChildEvent) {
	ev.ParentCallID, ev.Description, ev.Session = w.spec.CallID, w.spec.Description, w.session
	if w.spec.Agent != nil {
		ev.Agent = w.spec.Agent.Name
	}
	w.call.Report(tools.Progress{Text: w.status(), Detail: ev})
}

// status is the child's state: its last calls, one line each, then a
// line of what it runs now, how long it has run and its tokens.
func (w *watch) status() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	steps := w.steps[max(len(w.steps)-shownSteps, 0):]
	s := w.spec.Description
	if w.tool != "" {
		s += " · " + w.tool
	}
	if !w.start.IsZero() {
		s += " · " + time.Since(w.start).Round(time.Second).String()
	}
	if n := w.usage.InputTokens + w.usage.OutputTokens; n > 0 {
		s += fmt.Sprintf(" · %d tokens", n)
	}
	return strings.Join(append(slices.Clone(steps), s), "\n")
}

// see takes one of the child's events.
func (w *watch) see(ev loop.Event) {
	w.mu.Lock()
	switch ev := ev.(type) {
	case loop.StepStarted:
		w.keepStep()
	case loop.TextDelta:
		w.step.WriteString(ev.Text)
	case loop.ToolCallStarted:
		w.tool = ev.Name
		if ev.Summary.Title != "" {
			w.tool += " " + ev.Summary.Title
		}
		if w.running == nil {
			w.running = map[string]int{}
		}
		w.running[ev.ID] = len(w.steps)
		w.steps = append(w.steps, "… "+w.tool)
		if ev.Kind == tools.KindRead {
			for _, p := range ev.Summary.Paths {
				if !slices.Contains(w.read, p) {
					w.read = append(w.read, p)
				}
			}
		}
	case loop.ToolCallFinished:
		w.tool = ""
		if i, ok := w.running[ev.ID]; ok {
			mark := "✓ "
			if ev.IsError {
				mark = "✗ "
			}
			w.steps[i] = mark + strings.TrimPrefix(w.steps[i], "… ")
			delete(w.running, ev.ID)
		}
	case loop.Usage:
		w.usage = ev.Total
	case loop.Done:
		w.keepStep()
		w.done, w.finished = ev, true
		w.usage = ev.Usage
	}
	w.mu.Unlock()
	w.report(loop.ChildEvent{Event: ev})
}

// keepStep keeps the finished step's text, when it had any.
func (w *watch) keepStep() {
	if t := strings.TrimSpace(w.step.String()); t != "" {
		w.lastText = t
	}
	w.step.Reset()
}

// result is the task call's result: the child's answer, or what it found
// so far, marked, and its token use; cut at max bytes.
func (w *watch) result(max int) tools.Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.done
	status, why := "completed", ""
	switch {
	case !w.finished:
		status, why = "failed", "it ended without a word"
	case d.Reason == loop.StopAnswered:
	case d.Reason == loop.StopCancelled:
		status, why = "cancelled", "it was cancelled"
	case d.Reason == loop.StopMaxSteps:
		status, why = "incomplete", "it reached its step limit"
	case d.Reason == loop.StopBudget:
		status, why = "failed", "it stopped at a spend cap"
		if d.Err != nil {
			why = "it stopped: " + d.Err.Error()
		}
	default:
		status, why = "failed", fmt.Sprintf("it stopped: %s", d.Reason)
		if d.Err != nil {
			why += ": " + d.Err.Error()
		}
		if m := w.modelRefused(d.Err); m != "" {
			why += ". " + m
		}
	}
	answer := strings.TrimSpace(d.Answer)
	if answer == "" {
		answer = w.lastText
	}
	var b strings.Builder
	if status == "completed" {
		b.WriteString(cut(answer, max))
	} else {
		fmt.Fprintf(&b, "The subagent did not finish (%s). What it found so far:\n\n", why)
		if answer == "" {
			answer = "(no text)"
		}
		b.WriteString(cut(answer, max))
		if len(w.read) > 0 {
			b.WriteString("\n\nFiles it read: " + strings.Join(w.read, ", "))
		}
	}
	u := w.usage
	fmt.Fprintf(&b, "\n\n(subagent %s, session %s: %d steps, %d tool calls; tokens: %d in, %d out)",
		status, w.session, d.Steps, d.ToolCalls, u.InputTokens, u.OutputTokens)
	meta := map[string]any{"session": w.session, "status": status, "usage": u, "steps": d.Steps, "tool_calls": d.ToolCalls}
	if w.spec.Agent != nil {
		meta["agent"] = w.spec.Agent.Name
	}
	return tools.Result{Content: b.String(), IsError: status == "failed", Meta: meta}
}

// modelRefused says, for a child whose agent definition names a model
// that the provider refused (HTTP 404, or 400 about the model), which
// model and definition it was and what to do; "" otherwise.
func (w *watch) modelRefused(err error) string {
	var api *providers.APIError
	ag := w.spec.Agent
	if ag == nil || ag.InheritsModel() || !errors.As(err, &api) ||
		!(api.StatusCode == 404 || api.StatusCode == 400 && strings.Contains(strings.ToLower(api.Message), "model")) {
		return ""
	}
	return fmt.Sprintf("The model %q (model: %s in agent %s's definition, %s) could not be served by this provider; "+
		"set model: inherit there, or map %q to a model this provider serves with model_aliases in the config", w.model, ag.Model, ag.Name, ag.Path, ag.Model)
}

// cut returns s, or its first max bytes (at a rune boundary) with a note
// of what was cut.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n\n[... the subagent's answer was cut here: %d of %d bytes shown ...]", n, len(s))
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
