package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

// stop is how a step ends the turn: the reason, the answer and the error
// Done reports (prepare's, instead of sending a request).
type stop struct {
	reason StopReason
	answer string
	err    error
}

// prepare is the step before every request: it builds the request from the
// conversation and the current picks, estimates its size in tokens and,
// when it passes the auto-compact threshold, compacts the conversation
// first. A request that would not fit the window is never sent: the turn
// stops with StopContextFull.
func (t *turn) prepare() (providers.Request, *stop) {
	req := t.request()
	window := t.cfg.usable()
	if window <= 0 {
		return req, nil
	}
	est := t.conv.Estimate(req)
	if t.cfg.AutoCompact > 0 && float64(est) > t.cfg.AutoCompact*float64(window) {
		if err := t.compact(est, "", true); err != nil {
			if errors.As(err, new(budgetError)) {
				return req, t.overBudget(err)
			}
			if t.ctx.Err() != nil {
				return req, &stop{StopCancelled, "", t.ctx.Err()}
			}
			if errors.Is(err, errCannotFree) {
				return req, &stop{StopContextFull, "", err}
			}
			return req, &stop{StopError, "", fmt.Errorf("compacting the conversation: %w", err)}
		}
		req = t.request()
		est = t.conv.Estimate(req)
	}
	if est > window {
		hint := "start a new session (/new in the interface, or agent without -c)"
		if t.cfg.AutoCompact == 0 {
			hint = "turn automatic compaction on (auto_compact in the config file), compact it with /compact in the interface, " +
				"or start a new session"
		}
		err := fmt.Errorf("the next request (about %d tokens) would not fit %s's context window of %d tokens with %d kept for the answer: %s",
			est, t.cfg.Model, t.cfg.Window, t.cfg.Window-window, hint)
		return req, &stop{StopContextFull, "", err}
	}
	return req, nil
}

// usable is the tokens a request may carry: the window less what is kept
// for the response (ReserveOutput, at most half the window); 0 when the
// window is unknown.
func (c *Config) usable() int {
	if c.Window <= 0 {
		return 0
	}
	return c.Window - min(max(c.ReserveOutput, 0), c.Window/2)
}

// errCannotFree is the reason a compaction cannot help: what it would keep
// does not fit, or it would free too little of the window.
var errCannotFree = errors.New("compaction cannot free enough of the context window")

// keepShare is the share of the window that a compaction keeps verbatim at
// most (the newest messages); minFreedShare the share it must free, or the
// turn stops instead of compacting again and again. A compaction keeps less
// when the system prompt and the tools take much of the window: what it
// keeps plus them stays under keepWithFixed of the window, so that it can
// free minFreedShare.
const (
	keepShare     = 0.25
	minFreedShare = 0.25
	keepWithFixed = 0.5
)

// compact replaces the older part of the conversation with the model's
// summary of it. before is the current request's estimate in tokens; auto
// says whether the Prepare step asked (then a compaction that frees less than
// minFreedShare of the window, or whose result would still pass the
// threshold, is refused with errCannotFree: compacting again would not help
// either). The summary request declares the tools, so that the provider's
// prefix cache serves it and the history's tool calls stay valid, but lets
// the model call none (providers.ToolChoiceNone); it is not a step. Its
// usage counts in the session whether or not the compaction happens.
func (t *turn) compact(before int, instructions string, auto bool) (err error) {
	msgs := t.conv.Messages()
	window := t.cfg.usable()
	keep := 0 // asked for: keep only the newest exchange
	if auto {
		keep = t.autoKeep(window)
	}
	n := cutPoint(msgs, keep)
	if n == 0 {
		if auto {
			return fmt.Errorf("%w: the newest exchange alone is about %d tokens", errCannotFree, before)
		}
		return errors.New("there is nothing to compact yet")
	}
	if err := t.allow(); err != nil {
		return err // the summary is a request too
	}
	t.emit(Compacting{BeforeTokens: before, Auto: auto})
	if t.cfg.BeforeCompact != nil {
		t.cfg.BeforeCompact(t.ctx, CompactStart{Session: t.conv.SessionID(), Auto: auto, Instructions: instructions})
	}
	req := t.request()
	req.Messages = append(msgs[:n:n], userMessage(summaryPrompt(instructions)))
	req.ToolChoice = providers.ToolChoiceNone
	if window > 0 && t.conv.Estimate(req) > window {
		return fmt.Errorf("%w: the part to summarise does not fit the window itself", errCannotFree)
	}
	ctx, traced := t.traceRequest(0, true, req)
	resp, err := t.stream(ctx, req, t.forwardRetries)
	traced(resp, err)
	if resp == nil {
		resp = &providers.Response{}
	}
	t.addUsage(0, resp.Usage)
	applied := false
	defer func() {
		if !applied {
			if uerr := t.conv.AddUsage(context.WithoutCancel(t.ctx), resp.Usage); uerr != nil && err == nil {
				err = fmt.Errorf("saving the conversation: %w", uerr)
			}
		}
	}()
	if err != nil {
		return fmt.Errorf("asking for a summary: %w", err)
	}
	if resp.FinishReason == providers.FinishLength {
		return errors.New("the summary was cut off by the model's output limit (raise max_output_tokens, or start a new session)")
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return errors.New("the model returned an empty summary")
	}
	if t.cfg.SummaryNote != nil {
		if note := strings.TrimSpace(t.cfg.SummaryNote(t.conv.SessionID())); note != "" {
			summary += "\n\n" + note
		}
	}
	after := t.conv.Estimate(t.compacted(conversation.SummaryMessage(summary), msgs[n:]))
	if auto && window > 0 {
		if err := t.freesEnough(before, after, window); err != nil {
			return err
		}
	}
	cp := conversation.Compaction{Summary: summary, BeforeTokens: before, AfterTokens: after, Usage: resp.Usage}
	if err := t.conv.Compact(context.WithoutCancel(t.ctx), n, cp); err != nil {
		return fmt.Errorf("saving the compaction: %w", err)
	}
	applied = true
	t.emit(Compacted{BeforeTokens: before, AfterTokens: after, Summary: summary, Auto: auto})
	if t.cfg.AfterCompact != nil {
		t.cfg.AfterCompact(t.ctx, CompactEnd{Session: t.conv.SessionID(), Auto: auto})
	}
	return nil
}

// autoKeep is how many bytes of the newest messages an automatic
// compaction keeps: keepShare of the window, less when the system prompt
// and the tools' definitions with them would pass keepWithFixed of it.
func (t *turn) autoKeep(window int) int {
	fixed := conversation.Tokens(conversation.SizeOf(providers.Request{System: t.conv.System(), Tools: t.request().Tools}).Total())
	tokens := min(keepShare*float64(window), keepWithFixed*float64(window)-float64(fixed))
	return max(int(tokens*conversation.BytesPerToken), 0)
}

// freesEnough refuses, with errCannotFree, an automatic compaction that
// would take the request's estimate from before to after tokens: one whose
// result still passes the threshold, or that frees less than
// minFreedShare of the window.
func (t *turn) freesEnough(before, after, window int) error {
	freed := before - after
	if after > int(t.cfg.AutoCompact*float64(window)) || float64(freed) < minFreedShare*float64(window) {
		return fmt.Errorf("%w: it would leave about %d of %d tokens (freeing %d); start a new session (/new, or agent without -c)",
			errCannotFree, after, window, max(freed, 0))
	}
	return nil
}

// compacted is the request the conversation would make after a compaction
// to summary, keeping kept.
func (t *turn) compacted(summary providers.Message, kept []providers.Message) providers.Request {
	req := t.request()
	req.Messages = append([]providers.Message{summary}, kept...)
	return req
}

// cutPoint returns how many of the oldest messages a compaction replaces:
// the smallest n > 0 such that the messages from n on take at most keep
// bytes and msgs[n] is not a tool message (every kept tool call keeps its
// results). When even the newest exchange is larger than keep, it alone is
// kept. 0 means nothing can be compacted.
func cutPoint(msgs []providers.Message, keep int) int {
	size, last := 0, 0
	for i := len(msgs) - 1; i >= 1; i-- {
		size += conversation.MessageSize(msgs[i])
		if msgs[i].Role == providers.RoleTool {
			continue
		}
		if last == 0 {
			last = i // the newest exchange starts here
		}
		if size > keep {
			return last
		}
		last = i
	}
	return last
}

// summaryPrompt is the request for a compaction's summary.
func summaryPrompt(instructions string) string {
	var b strings.Builder
	b.WriteString(`The conversation above is about to be compacted: it will be replaced by your summary, and the work goes on from the summary alone (the newest messages are kept as they are). Write the summary now, without calling tools. Be specific and complete but brief; keep exact file paths, names, commands and error messages. Use these sections:

1. Goal: what the user asked for, in their words where they matter, and any constraints they set.
2. Decisions: what was decided and why, including approaches rejected.
3. Files: the files read (with what matters in them) and the files changed (and how).
4. Done: what is finished and verified.
5. Left: what remains to do, and open questions.
6. Next step: what you were about to do next.`)
	if s := strings.TrimSpace(instructions); s != "" {
		b.WriteString("\n\nThe user adds these instructions for the summary: ")
		b.WriteString(s)
	}
	return b.String()
}

// forwardRetries passes a summary request's retries on; its text is not
// part of the conversation's answer.
func (t *turn) forwardRetries(ev providers.StreamEvent) {
	if r, ok := ev.(providers.Retry); ok {
		t.forward(r)
	}
}

// Context is how a conversation's next request fills the model's context
// window, for /context. Token counts are estimates (see
// conversation.Estimate), except Usage, which is what the server reported.
type Context struct {
	// Window is the context window in tokens, 0 when unknown; Reserved the
	// part of it kept for the response; AutoCompact the share of the rest
	// past which the loop compacts (0: never).
	Window, Reserved int
	AutoCompact      float64
	// System, Tools and History split the next request in tokens at
	// conversation.BytesPerToken; Estimate is the whole request, calibrated
	// by the last usage the server reported.
	System, Tools, History, Estimate int
	// Messages is the number of messages the request carries; Compactions
	// how often the session was compacted.
	Messages, Compactions int
	// Usage is the session's total usage, cached input tokens included.
	Usage providers.Usage
}

// Context reports how conv's next request would fill the window.
func (l *Loop) Context(conv *conversation.Conversation) Context {
	t := &turn{cfg: &l.cfg, conv: conv}
	req := t.request()
	sz := conversation.SizeOf(req)
	return Context{
		Window: l.cfg.Window, Reserved: l.cfg.Window - l.cfg.usable(), AutoCompact: l.cfg.AutoCompact,
		System: conversation.Tokens(sz.System), Tools: conversation.Tokens(sz.Tools),
		History: conversation.Tokens(sz.History), Estimate: conv.Estimate(req),
		Messages: len(req.Messages), Compactions: conv.Compactions(), Usage: conv.Usage(),
	}
}
