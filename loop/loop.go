// Package loop is the agent loop: it streams a model response, runs the tool
// calls it asks for, feeds the results back and repeats until the model
// answers without calling a tool, the context is cancelled or the step limit
// is reached. Everything that happens is reported as an Event on a channel
// that the TUI and the headless printer both consume; the loop knows nothing
// about terminals.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/picker"
)

// DefaultMaxSteps is the step limit when Config.MaxSteps is zero.
const DefaultMaxSteps = 25

// MaxContinuations is how many times in a row the loop asks the model to
// continue a response cut by its output limit before it ends the turn with
// StopMaxTokens.
const MaxContinuations = 2

// Config is what a Loop needs. Provider, Model and Catalog are required.
type Config struct {
	Provider providers.Provider
	Model    string
	// Fallbacks are the models a turn moves to, in order, when its
	// model's requests still fail with an overload, a rate limit or a
	// server error after the provider's retries (see FellBack); none
	// ends the turn on the error.
	Fallbacks []Fallback
	// Catalog is the tools and how they are offered; the picks are the
	// conversation's. A *picker.Catalog is its own source; a
	// *picker.Live changes when MCP servers' tools change, and each
	// request and each step's calls read one snapshot of it (after the
	// source's Settle, when it has one: see CatalogSource).
	Catalog CatalogSource
	// MaxSteps bounds the requests of one turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// Approve is asked before every tool call, read-only ones included (the
	// user's deny rules hold for every tool); it should allow a read-only
	// call at once unless a rule or the gate says otherwise. nil allows
	// them all.
	Approve ApproveFunc
	// Gate, when not nil, is asked about every tool call before Approve
	// (see GateFunc).
	Gate GateFunc
	// AfterCall, when not nil, is asked after every tool call that ran
	// and may change its result (see AfterCallFunc).
	AfterCall AfterCallFunc
	// BeforeCompact, when not nil, is told when a compaction starts (a
	// PreCompact hook), before the summary is asked for.
	BeforeCompact func(ctx context.Context, c CompactStart)
	// AfterCompact, when not nil, is told when a compaction was saved (a
	// PostCompact hook).
	AfterCompact func(ctx context.Context, c CompactEnd)
	// SummaryNote, when not nil, is asked as a compaction is saved for
	// what the conversation must still know that its summary may have
	// lost (the background processes still running); its text, when not
	// empty, ends the summary message and is stored with it.
	// It is given the conversation's session id.
	SummaryNote func(session string) string
	// Prepare, when not nil, is the public Prepare step, called before
	// every request (see PrepareFunc).
	Prepare PrepareFunc
	// BeforeStop, when not nil, is asked before a turn ends on an answer
	// and may send the model on (see StopCheckFunc). With CheckAnswer it
	// is asked only about an answer the check accepted.
	BeforeStop StopCheckFunc
	// CheckAnswer, when not nil, is asked about every final answer before
	// BeforeStop (see AnswerCheckFunc): an answer it rejects is sent back
	// with the rejection as a user message (a correction, whose request
	// counts against the step limit), at most AnswerCorrections times a
	// turn; one more rejection ends the turn with StopStructuredOutput.
	// The accepted value is Done.Structured.
	CheckAnswer AnswerCheckFunc
	// AnswerCorrections is how many corrections CheckAnswer's rejections
	// may send in one turn; 0 ends the turn at the first rejection.
	AnswerCorrections int
	// Origin says on whose behalf the loop runs (a subagent's parent
	// call); approvals and gates carry it.
	Origin Origin
	// Parallel bounds how many read-only tool calls of one step run at once;
	// 0 means 8.
	Parallel int
	// Store, when not nil, records every tool call as it starts, is decided
	// and finishes (messages are recorded by the conversation). A failed
	// write ends the turn with StopError: a turn that cannot be saved is not
	// carried on.
	Store Store
	// Window is the model's context window in tokens; 0 when unknown, which
	// turns context accounting and compaction off.
	Window int
	// AutoCompact is the share of the usable window (0 to 1) past which the
	// next request is preceded by a compaction; 0 turns automatic
	// compaction off (a request over the window still ends the turn).
	AutoCompact float64
	// ReserveOutput is the tokens of the window kept for the response (the
	// max_tokens the provider asks for, thinking included): a request
	// carries at most Window less this, and never less than half the
	// window. 0 keeps nothing.
	ReserveOutput int
	// Budget, when not nil, counts every response's usage and is asked
	// before every request whether it may be sent (see Budget): a spend
	// cap.
	Budget Budget
	// Now is the clock tool calls are timed with (their start, finish and
	// approval wait); nil is time.Now. It must be safe for concurrent use.
	Now func() time.Time
	// Trace, when not nil, sees the turns, requests and tool calls as they
	// start and end (telemetry); see Tracer.
	Trace Tracer
}

// CatalogSource gives the current tool catalog; it must be safe for
// concurrent use, never return nil and never wait (New and the interface
// call it). A source whose catalog may have changes on their way (an MCP
// server announced a new tool list) also has a method Settle(ctx), which
// the turn calls with its own context before each snapshot it takes for a
// request or a step's calls: Settle returns once those changes are in
// Current, or when ctx is done (the turn was cancelled).
type CatalogSource interface {
	Current() *picker.Catalog
}

// settler is the optional part of a CatalogSource, see there.
type settler interface {
	Settle(ctx context.Context)
}

// catalog returns the snapshot of the tool catalog for a request or a
// step's calls, once the changes the source announced have arrived or the
// turn is cancelled.
func (t *turn) catalog() *picker.Catalog {
	if s, ok := t.cfg.Catalog.(settler); ok {
		s.Settle(t.ctx)
	}
	return t.cfg.Catalog.Current()
}

// Loop runs turns of conversations. It holds no conversation of its own: a
// Loop may serve several in turn, one turn at a time per conversation.
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
	case cfg.Catalog == nil || cfg.Catalog.Current() == nil:
		return nil, errors.New("loop: no tool catalog")
	case cfg.MaxSteps < 0:
		return nil, fmt.Errorf("loop: max steps must be positive, got %d", cfg.MaxSteps)
	case cfg.AnswerCorrections < 0:
		return nil, fmt.Errorf("loop: answer corrections must be at least 0, got %d", cfg.AnswerCorrections)
	case cfg.AutoCompact < 0 || cfg.AutoCompact > 1:
		return nil, fmt.Errorf("loop: auto compact must be a share of the window from 0 to 1, got %g", cfg.AutoCompact)
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Loop{cfg: cfg}, nil
}

// Model returns the model the loop asks.
func (l *Loop) Model() string { return l.cfg.Model }

// WithModel returns a loop like l that asks model instead (a custom
// command's model, for one turn); l is unchanged. An empty model returns l.
func (l *Loop) WithModel(model string) *Loop {
	if model == "" || model == l.cfg.Model {
		return l
	}
	c := *l
	c.cfg.Model = model
	return &c
}

// Run starts a turn of conv: prompt, a user message, is appended to it and
// the loop runs in a new goroutine, appending every message as it completes.
// It returns the turn's event channel; the last event is always a Done,
// after which the channel is closed. No event is dropped, also after
// cancellation; in exchange the consumer must read until the channel is
// closed, or the turn's goroutine blocks. A conversation runs one turn at a
// time.
//
// Cancelling ctx stops the model's stream and the running tools; the Done
// event then carries StopCancelled and the partial answer.
func (l *Loop) Run(ctx context.Context, conv *conversation.Conversation, prompt providers.Message) <-chan Event {
	t, ch := l.start(ctx, conv)
	go func() {
		defer close(ch)
		end := t.traceTurn(TraceTurn{Prompt: prompt})
		d := t.run(prompt)
		end(d)
		t.emit(d)
	}()
	return ch
}

// Compact compacts conv now, as /compact asks: the older messages are
// replaced by the model's summary (instructions, when not empty, say what
// the summary must keep). Its events are Compacting, Usage and Compacted,
// then Done (StopAnswered, or StopError with the reason it could not
// compact). Like Run, the channel must be read until it is closed.
func (l *Loop) Compact(ctx context.Context, conv *conversation.Conversation, instructions string) <-chan Event {
	t, ch := l.start(ctx, conv)
	go func() {
		defer close(ch)
		end := t.traceTurn(TraceTurn{Compaction: true})
		req := t.request()
		err := t.compact(conv.Estimate(req), instructions, false)
		var d Done
		var be budgetError
		switch {
		case errors.As(err, &be):
			d = t.done(0, StopBudget, "Stopped: "+be.Error()+".", be.err)
		case err != nil && ctx.Err() != nil:
			d = t.done(0, StopCancelled, "", ctx.Err())
		case err != nil:
			d = t.done(0, StopError, "", err)
		default:
			d = t.done(0, StopAnswered, "", nil)
		}
		end(d)
		t.emit(d)
	}()
	return ch
}

func (l *Loop) start(ctx context.Context, conv *conversation.Conversation) (*turn, chan Event) {
	ch := make(chan Event, 64)
	return &turn{cfg: &l.cfg, ctx: ctx, ch: ch, start: time.Now(), conv: conv}, ch
}

// turn is the state of one running turn.
type turn struct {
	cfg       *Config
	ctx       context.Context
	ch        chan<- Event
	start     time.Time
	conv      *conversation.Conversation
	usage     providers.Usage
	toolCalls int
	cuts      int        // responses in a row cut by the output limit
	said      string     // the text of the cut or paused responses the next one goes on from
	storeErr  firstError // the first failed tool-call write of the turn
	// stopChecked is true once BeforeStop sent the model on.
	stopChecked bool
	// corrections counts the answers CheckAnswer sent back; value is the
	// answer's value it accepted, set as the turn ends on it.
	corrections int
	value       json.RawMessage
	// wrote is the text of each of the turn's responses that had any.
	wrote []string
	// fellBack counts the fallbacks the turn moved to (Config.Fallbacks):
	// 0 asks Config.Model.
	fellBack int
	// gatePassed is set once the context's tool gate was waited for
	// (WithToolGate).
	gatePassed bool
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
	if serr := t.conv.Settle(); serr != nil {
		serr = fmt.Errorf("saving the conversation: %w", serr)
		if err == nil {
			reason, err = StopError, serr
		} else {
			err = errors.Join(err, serr)
		}
	}
	d := Done{
		Answer:    answer,
		Reason:    reason,
		Err:       err,
		Steps:     step,
		ToolCalls: t.toolCalls,
		Usage:     t.usage,
		Duration:  time.Since(t.start),
	}
	if reason == StopAnswered {
		d.Structured = t.value
	}
	return d
}

// run is the turn: it records the prompt, then sends requests and runs the
// tool calls they ask for, step by step, until the turn stops (see
// StopReason). A step that ends the turn says so with a stop.
func (t *turn) run(prompt providers.Message) Done {
	prompt.Role = providers.RoleUser
	// The prompt's record goes on beside the first request: the next
	// write waits for it, and so does the turn's end (done).
	if err := t.conv.AppendBehind(context.WithoutCancel(t.ctx), prompt, providers.Usage{}); err != nil {
		return t.done(0, StopError, "", fmt.Errorf("saving the conversation: %w", err))
	}
	for step := 1; ; step++ {
		req, s := t.prepare()
		if s != nil {
			return t.done(step-1, s.reason, s.answer, s.err)
		}
		if err := t.allow(); err != nil {
			s := t.overBudget(err)
			return t.done(step-1, s.reason, s.answer, s.err)
		}
		r, s := t.ask(step, req)
		if s == nil {
			s = t.finish(step, r)
		}
		if s == nil {
			s = t.carryOn(step, r)
		}
		if s != nil {
			return t.done(step, s.reason, s.answer, s.err)
		}
	}
}

// beforeStop asks the configured check whether the turn may end on answer;
// when it sends the model on, its words are recorded as a user message and
// more is true. The step limit still applies (run checks it next).
func (t *turn) beforeStop(step int, answer string) (more bool, err error) {
	if t.cfg.BeforeStop == nil || t.ctx.Err() != nil {
		return false, nil
	}
	why := t.cfg.BeforeStop(t.ctx, StopCheck{Session: t.conv.SessionID(), Answer: answer, Step: step, Active: t.stopChecked})
	if why == "" || t.ctx.Err() != nil {
		return false, nil
	}
	t.stopChecked = true
	return true, t.record(userMessage(why), providers.Usage{})
}

// continuePrompt asks the model to go on after a response that its output
// limit cut.
const continuePrompt = "Your last response was cut off by the output token limit. Continue exactly where it stopped, " +
	"without repeating what you already wrote. If you were writing a tool call, it was not run: send it again, " +
	"smaller (for example as several smaller edits)."

// dropCutCalls removes from a response cut by the output limit the tool
// call it was writing when it was cut (the last one, whatever its
// arguments look like: an adapter may have completed them as "{}") and any
// whose arguments are not complete JSON. They must not run.
func dropCutCalls(m providers.Message) providers.Message {
	last := -1
	for i, p := range m.Parts {
		if _, ok := p.(providers.ToolCall); ok {
			last = i
		}
	}
	out := providers.Message{Role: m.Role}
	for i, p := range m.Parts {
		if c, ok := p.(providers.ToolCall); ok && (i == last || !json.Valid([]byte(c.Arguments))) {
			continue
		}
		out.Parts = append(out.Parts, p)
	}
	return out
}

// recordResponse appends a response's message to the conversation, or, when
// nothing of it is left to send back (a response cut inside its only tool
// call), only its usage.
func (t *turn) recordResponse(m providers.Message, usage providers.Usage) error {
	if len(m.Parts) > 0 {
		return t.record(m, usage)
	}
	if err := t.conv.AddUsage(context.WithoutCancel(t.ctx), usage); err != nil {
		return fmt.Errorf("saving the conversation: %w", err)
	}
	return nil
}

// addUsage counts a response's usage in the turn, and in the budget,
// and reports it.
func (t *turn) addUsage(step int, u providers.Usage) {
	t.usage = t.usage.Add(u)
	if t.cfg.Budget != nil {
		t.cfg.Budget.Add(t.model(), u)
	}
	if u != (providers.Usage{}) {
		t.emit(Usage{Step: step, Usage: u, Total: t.usage, Model: t.model()})
	}
}

// userMessage is a user message of one text.
func userMessage(text string) providers.Message {
	return providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: text}}}
}

// record appends a completed message to the conversation, which saves it.
// It writes with a context that outlives the turn's cancellation.
func (t *turn) record(m providers.Message, usage providers.Usage) error {
	if err := t.conv.Append(context.WithoutCancel(t.ctx), m, usage); err != nil {
		return fmt.Errorf("saving the conversation: %w", err)
	}
	return nil
}

// request builds the next request from the conversation, the picks and
// the tools its messages load (see picker.Catalog.Offers).
func (t *turn) request() providers.Request {
	msgs := t.conv.Messages()
	offers := t.catalog().Offers(t.conv.Picked(), loaded(msgs))
	defs := make([]providers.ToolDefinition, len(offers))
	for i, o := range offers {
		defs[i] = providers.ToolDefinition{Name: o.Name, Description: o.Description, Parameters: o.Schema, Deferred: o.Deferred}
	}
	return providers.Request{Model: t.model(), System: t.conv.System(), Messages: msgs, Tools: defs, CacheKey: t.conv.SessionID()}
}

// loaded lists the tools whose definitions msgs deliver: the References
// of their tool results.
func loaded(msgs []providers.Message) []string {
	var names []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				names = append(names, r.References...)
			}
		}
	}
	return names
}

// public runs the configured PrepareFunc on the request of step.
func (t *turn) public(step int, req providers.Request) providers.Request {
	if t.cfg.Prepare == nil {
		return req
	}
	return t.cfg.Prepare(t.ctx, Preparing{Session: t.conv.SessionID(), Step: step}, req)
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
		t.emit(Retry{Attempt: ev.Attempt, Max: ev.Max, Delay: ev.Delay, Err: msg, Discarded: ev.Discarded})
	case providers.ToolCallBegin:
		// The call is reported when it runs, with its complete arguments.
	case providers.WebSearched, providers.Cited:
		if e, ok := forwardSearch(ev); ok {
			t.emit(e)
		}
	}
}

// keepText returns the text and reasoning of an assistant message whose
// stream failed; tool calls are dropped because they were never answered.
func keepText(m providers.Message) providers.Message {
	out := providers.Message{Role: providers.RoleAssistant}
	for _, p := range m.Parts {
		switch p.(type) {
		case providers.Text, providers.Reasoning, providers.Citation:
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}
