// Package loop is the agent loop: it streams a model response, runs the tool
// calls it asks for, feeds the results back and repeats until the model
// answers without calling a tool, the context is cancelled or the step limit
// is reached. Everything that happens is reported as an Event on a channel
// that the TUI and the headless printer both consume; the loop knows nothing
// about terminals.
package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// DefaultMaxSteps is the step limit when Config.MaxSteps is zero.
const DefaultMaxSteps = 25

// Config is what a Loop needs. Provider, Model and Toolset are required.
type Config struct {
	Provider providers.Provider
	Model    string
	// System is the system prompt, sent once at the head of every request.
	System  string
	Toolset *picker.Toolset
	// MaxSteps bounds the requests of one turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// Approve is asked before every tool call that is not read-only; nil
	// allows them all.
	Approve ApproveFunc
	// Parallel bounds how many read-only tool calls of one step run at once;
	// 0 means 8.
	Parallel int
	// KeepPicked keeps the picked tools from one turn to the next instead of
	// clearing them when a turn ends.
	KeepPicked bool
	// Store, when not nil, records every message and tool call as it
	// completes. A failed write ends the turn with StopError: a turn that
	// cannot be saved is not carried on.
	Store Store
}

// ApproveFunc decides whether a tool call that changes the world may run. It
// may block (the TUI asks a person) and must return when ctx is cancelled.
type ApproveFunc func(ctx context.Context, req Approval) Decision

// Approval is a question to an ApproveFunc: the call, its tool and, for a
// tool that can preview its effect (tools.Previewer: an edit's diff), the
// preview; nil when there is none.
type Approval struct {
	Call    providers.ToolCall
	Def     tools.Definition
	Preview *tools.Result
}

// Decision is an approval's answer. When Allow is false, Reason is given to
// the model as the tool's error result.
type Decision struct {
	Allow  bool
	Reason string
	// Why is a short phrase saying who or what decided, for the record and
	// the user, never for the model: `rule: allow "git status"`,
	// "person: once", "person: for the session", "sandbox: workspace-write,
	// network off", `denied by rule "rm"`, "yolo". The loop puts it in
	// ToolCallFinished.Meta["decision"] when it is not empty, and gives it
	// with Allow to Store.DecideToolCall.
	Why string
}

// Loop runs turns of one conversation. A Loop runs one turn at a time.
type Loop struct {
	cfg Config
}

// New checks cfg and returns a Loop.
func New(cfg Config) (*Loop, error) {
	switch {
	case cfg.Provider == nil:
		return nil, errors.New("loop: no provider")
	case cfg.Model == "":
		return nil, errors.New("loop: no model")
	case cfg.Toolset == nil:
		return nil, errors.New("loop: no toolset")
	case cfg.MaxSteps < 0:
		return nil, fmt.Errorf("loop: max steps must be positive, got %d", cfg.MaxSteps)
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	return &Loop{cfg: cfg}, nil
}

// Run starts a turn: prompt is added to history as a user message and the
// loop runs in a new goroutine. It returns the turn's event channel; the last
// event is always a Done, after which the channel is closed. No event is
// dropped, also after cancellation; in exchange the consumer must read until
// the channel is closed, or the turn's goroutine blocks. history is not
// modified.
//
// Cancelling ctx stops the model's stream and the running tools; the Done
// event then carries StopCancelled and the partial answer.
func (l *Loop) Run(ctx context.Context, history []providers.Message, prompt string) <-chan Event {
	ch := make(chan Event, 64)
	t := &turn{
		cfg:   &l.cfg,
		ctx:   ctx,
		ch:    ch,
		start: time.Now(),
		msgs:  append(slices.Clip(history), providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: prompt}}}),
		first: len(history),
	}
	go func() {
		defer close(ch)
		done := t.run()
		if !l.cfg.KeepPicked {
			l.cfg.Toolset.Reset()
		}
		t.emit(done)
	}()
	return ch
}

// turn is the state of one running turn.
type turn struct {
	cfg       *Config
	ctx       context.Context
	ch        chan<- Event
	start     time.Time
	msgs      []providers.Message
	first     int
	usage     providers.Usage
	toolCalls int
	storeErr  firstError // the first failed tool-call write of the turn
}

// firstError keeps the first error set, for writes made from several
// goroutines.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *firstError) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// emit delivers ev. It blocks until the consumer reads, also after
// cancellation, so no event is lost: Run's contract is that the consumer
// reads until the channel is closed.
func (t *turn) emit(ev Event) { t.ch <- ev }

func (t *turn) done(step int, reason StopReason, answer string, err error) Done {
	return Done{
		Answer:    answer,
		Reason:    reason,
		Err:       err,
		Steps:     step,
		ToolCalls: t.toolCalls,
		Usage:     t.usage,
		Duration:  time.Since(t.start),
		Messages:  t.msgs[t.first:],
	}
}

func (t *turn) run() Done {
	if err := t.record(t.msgs[len(t.msgs)-1], providers.Usage{}); err != nil {
		return t.done(0, StopError, "", err)
	}
	for step := 1; ; step++ {
		t.emit(StepStarted{Step: step})
		resp, err := t.cfg.Provider.Stream(t.ctx, t.request(), t.forward)
		if resp == nil {
			resp = &providers.Response{}
		}
		t.usage = t.usage.Add(resp.Usage)
		if resp.Usage != (providers.Usage{}) {
			t.emit(Usage{Step: step, Usage: resp.Usage, Total: t.usage})
		}
		if err != nil {
			partial := keepText(resp.Message)
			if len(partial.Parts) > 0 {
				t.msgs = append(t.msgs, partial)
				if rerr := t.record(partial, resp.Usage); rerr != nil {
					return t.done(step, StopError, partial.Text(), rerr)
				}
			}
			if t.ctx.Err() != nil {
				return t.done(step, StopCancelled, partial.Text(), t.ctx.Err())
			}
			return t.done(step, StopError, partial.Text(), err)
		}
		resp.Message.Role = providers.RoleAssistant
		t.msgs = append(t.msgs, resp.Message)
		if err := t.record(resp.Message, resp.Usage); err != nil {
			return t.done(step, StopError, resp.Message.Text(), err)
		}
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			return t.done(step, StopAnswered, resp.Message.Text(), nil)
		}
		results, err := t.runCalls(calls)
		t.msgs = append(t.msgs, results...)
		if err != nil {
			return t.done(step, StopError, resp.Message.Text(), err)
		}
		if t.ctx.Err() != nil {
			return t.done(step, StopCancelled, resp.Message.Text(), t.ctx.Err())
		}
		if step >= t.cfg.MaxSteps {
			answer := fmt.Sprintf("Stopped after %d steps (the step limit, --max-steps) before the model gave a final answer.", step)
			if text := resp.Message.Text(); text != "" {
				answer = text + "\n\n" + answer
			}
			return t.done(step, StopMaxSteps, answer, nil)
		}
	}
}

// record saves a completed message when the loop has a store. It writes
// with a context that outlives the turn's cancellation.
func (t *turn) record(m providers.Message, usage providers.Usage) error {
	if t.cfg.Store == nil {
		return nil
	}
	if err := t.cfg.Store.AppendMessage(context.WithoutCancel(t.ctx), m, usage); err != nil {
		return fmt.Errorf("saving the conversation: %w", err)
	}
	return nil
}

// request builds the next request from the conversation and the toolset.
func (t *turn) request() providers.Request {
	offers := t.cfg.Toolset.Offers()
	defs := make([]providers.ToolDefinition, len(offers))
	for i, o := range offers {
		defs[i] = providers.ToolDefinition{Name: o.Name, Description: o.Description, Parameters: o.Schema}
	}
	return providers.Request{Model: t.cfg.Model, System: t.cfg.System, Messages: t.msgs, Tools: defs}
}

// forward turns a provider's stream events into loop events.
func (t *turn) forward(ev providers.StreamEvent) {
	switch ev := ev.(type) {
	case providers.TextDelta:
		t.emit(TextDelta{Text: ev.Text})
	case providers.ReasoningDelta:
		t.emit(ReasoningDelta{Text: ev.Text})
	case providers.Retry:
		msg := ""
		if ev.Err != nil {
			msg = ev.Err.Error()
		}
		t.emit(Retry{Attempt: ev.Attempt, Max: ev.Max, Delay: ev.Delay, Err: msg})
	case providers.ToolCallBegin:
		// The call is reported when it runs, with its complete arguments.
	}
}

// keepText returns the text and reasoning of an assistant message whose
// stream failed; tool calls are dropped because they were never answered.
func keepText(m providers.Message) providers.Message {
	out := providers.Message{Role: providers.RoleAssistant}
	for _, p := range m.Parts {
		switch p.(type) {
		case providers.Text, providers.Reasoning:
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}
