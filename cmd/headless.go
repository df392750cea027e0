package cmd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/turn"
)

// runHeadless answers one prompt without a user interface: it composes the
// prompt (argument and piped input), opens the session on the host, runs
// one turn and prints it in the chosen output format; with
// --export-session it then writes the session, whatever the outcome.
func runHeadless(ctx context.Context, o *Options, st Streams, getenv func(string) string) (err error) {
	switch o.OutputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usagef("unknown output format %q: use text, json or stream-json", o.OutputFormat)
	}
	if o.Resume == resumePick {
		return usagef("--resume needs a session id in headless mode (agent sessions list shows them)")
	}
	mode, err := host.PermissionMode(&o.Flags, false)
	if err != nil {
		return err
	}
	schema, err := answerSchema(o.JSONSchema)
	if err != nil {
		return err
	}
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	h, err := openHost(ctx, o, getenv, true)
	if err != nil {
		return err
	}
	defer h.Close()
	prompt, err := headlessPrompt(ctx, o, st)
	if err != nil {
		return err
	}
	if noted, err := rememberPrompt(h, o, st, dir, prompt.Message.Text()); noted {
		return err
	}
	if s, err := h.Settings(); err == nil && o.Verbose {
		fmt.Fprintf(st.Err, "· %s\n", s.Describe())
	}
	warn := func(msg string) { fmt.Fprintln(st.Err, "agent: "+msg) }
	// A plan is the answer: the turn ends as the plan is given, before the
	// loop could send another request.
	var stop turnStop
	req := o.request(dir)
	req.Title = sessions.TitleFromPrompt(prompt.Message.Text())
	req.Schema = schema
	sess, err := h.OpenSession(ctx, req,
		host.FrontEnd{Name: "headless", Mode: mode, AllowBash: o.AllowBash, Warn: warn, Plan: stop.plan,
			Trust: host.Trust{Hooks: o.TrustProject, MCP: o.TrustProjectMCP || o.TrustProject}})
	if err != nil {
		return err
	}
	defer sess.Close()
	defer func() { err = exportAtEnd(ctx, o, sess, st.Err, err) }()
	for _, w := range append(sess.Warnings(), sess.Notices()...) {
		warn(w)
	}
	if o.Verbose {
		fmt.Fprintf(st.Err, "· session %s (%d earlier messages)\n", sess.ID(), sess.Conversation().Len())
	}
	s := sess.Settings()
	p := newPrinter(o.OutputFormat, st.Out, st.Err, o.Verbose || st.ErrIsTerminal)
	p.schema = schema != nil
	if err := p.init(sess.ID(), s.Model, sess.Dir(), s.Tools, sess.ToolNames()); err != nil {
		return err
	}
	return printTurn(ctx, h, sess, &stop, prompt, p)
}

// turnStop cancels the running turn when a plan is given (a headless
// run's answer to exit_plan_mode).
type turnStop struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// set makes cancel the turn's.
func (t *turnStop) set(cancel context.CancelFunc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cancel = cancel
}

// plan ends the turn with the plan as its answer.
func (t *turnStop) plan(context.Context, string, string) (plan.Outcome, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
	return plan.Outcome{Stop: true}, nil
}

// printTurn runs the turn and prints its events, then its end, and maps
// how it ended to the run's error (and so its exit code). A failed write
// (the reader of stdout went away) cancels the turn; the events are still
// drained so its tools stop cleanly.
func printTurn(ctx context.Context, h *host.Host, sess *host.Session, stop *turnStop, prompt turn.Prompt, p *printer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop.set(cancel)
	var done loop.Done
	var writeErr error
	planText := ""
	for ev := range sess.Turn(ctx, prompt) {
		if d, ok := ev.(loop.Done); ok {
			done = d
			continue
		}
		if text, ok := stopsWithPlan(ev); ok && planText == "" {
			planText = text
		}
		if writeErr == nil {
			if writeErr = p.event(ev); writeErr != nil {
				cancel()
			}
		}
	}
	if planText != "" && writeErr == nil {
		done.Answer, done.Reason, done.Err = planText, loop.StopAnswered, nil
	}
	if writeErr != nil {
		return fmt.Errorf("writing output: %w", writeErr)
	}
	model := sess.Settings().Model
	p.pricer = h.Pricer() // as the SDK's protocol prices: each model at its own price
	if p.costed(model) {
		p.sessionSpend = sessionSpend(context.WithoutCancel(ctx), sess, p.pricer, done.Usage, p.models)
	}
	if err := p.finish(done, sess.ID(), model); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return turnEnd(done)
}

// sessionSpend is what the session cost so far, its subagents' work
// included, each model at its own price; own is the turn's usage, for a
// session the store cannot say, and turn the turn's usage by model: what
// fallback models used is priced at theirs (the store keeps the session's
// usage as one sum).
func sessionSpend(ctx context.Context, sess *host.Session, pricer func(string) (providers.Price, bool), own providers.Usage, turn map[string]providers.Usage) *providers.Spend {
	store, model := sess.Store(), sess.Settings().Model
	if rec, err := store.Get(ctx, sess.ID()); err == nil {
		own = rec.Usage
	}
	spend := providers.NewSpend(pricer)
	for m, u := range turn {
		if m != model && m != "" {
			spend.Add(m, u)
			own = minus(own, u)
		}
	}
	spend.Add(model, own)
	if sub, err := store.SubagentUsageByModel(ctx, sess.ID()); err == nil {
		for m, u := range sub { // the subagents' work is the session's too
			spend.Add(m, u)
		}
	}
	return spend
}

// turnEnd maps how a turn ended to the run's error.
func turnEnd(done loop.Done) error {
	switch done.Reason {
	case loop.StopCancelled:
		return turnError{done.Reason, errors.New("interrupted")}
	case loop.StopError, loop.StopMaxTokens, loop.StopContextFull, loop.StopRefused, loop.StopStructuredOutput:
		return turnError{done.Reason, done.Err}
	case loop.StopBudget: // the answer's last line says why
		return turnError{reason: done.Reason}
	}
	if done.Err != nil { // the turn ended well, but its end was not recorded
		return done.Err
	}
	return turnError{reason: done.Reason}
}

// rememberPrompt saves a headless prompt that is a "#" note (turn.MemoryNote)
// to the project's MEMORY.md instead of sending it, and reports whether it
// was one. Only a prompt given as an argument counts: piped input that
// starts with "#" is a markdown document to send.
func rememberPrompt(h *host.Host, o *Options, st Streams, dir, prompt string) (bool, error) {
	note, ok := turn.MemoryNote(o.Prompt)
	if !ok || prompt != o.Prompt {
		return false, nil
	}
	path, err := h.Remember(dir, note)
	if err != nil {
		return true, err
	}
	fmt.Fprintf(st.Err, "agent: saved to memory (%s); new sessions of this project start with it\n", path)
	return true, nil
}

// minus is a's tokens less b's, none below zero.
func minus(a, b providers.Usage) providers.Usage {
	sub := func(x, y int) int { return max(x-y, 0) }
	return providers.Usage{InputTokens: sub(a.InputTokens, b.InputTokens), OutputTokens: sub(a.OutputTokens, b.OutputTokens),
		CachedInputTokens: sub(a.CachedInputTokens, b.CachedInputTokens), ReasoningTokens: sub(a.ReasoningTokens, b.ReasoningTokens),
		CacheWriteTokens: sub(a.CacheWriteTokens, b.CacheWriteTokens), WebSearches: sub(a.WebSearches, b.WebSearches)}
}
