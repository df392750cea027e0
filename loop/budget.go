package loop

import (
	"context"
	"errors"
	"strings"

	"github.com/agent-dev/agent/providers"
)

// Budget is a spend cap's meter, as a loop sees it (package budget's
// Meter is the host's). It must be safe for concurrent use: a session's
// loop and its subagents' loops share one.
type Budget interface {
	// Add counts u, the usage of one response of model (a compaction's
	// summary request's too).
	Add(model string, u providers.Usage)
	// Allow is asked before every request, compaction's summary requests
	// included, with the conversation's session id: nil sends it; an error
	// says which cap was reached and what was spent, and the turn ends with
	// StopBudget. It may block (a person asked whether to raise the cap)
	// and must return when ctx is cancelled.
	Allow(ctx context.Context, session string) error
}

// budgetError is why the turn may not send its next request.
type budgetError struct{ err error }

func (e budgetError) Error() string { return e.err.Error() }
func (e budgetError) Unwrap() error { return e.err }

// allow asks the configured Budget whether the next request may be sent;
// the error, when not nil, is a budgetError, or the turn's context's
// error once the turn was cancelled while it asked.
func (t *turn) allow() error {
	if t.cfg.Budget == nil {
		return nil
	}
	err := t.cfg.Budget.Allow(t.ctx, t.conv.SessionID())
	switch {
	case err == nil:
		return nil
	case t.ctx.Err() != nil:
		return t.ctx.Err()
	}
	return budgetError{err}
}

// overBudget is how a turn ends when err, allow's error, refused its next
// request: cancelled when the turn was, else at its budget with the text
// the model wrote so far and a line saying why.
func (t *turn) overBudget(err error) *stop {
	var be budgetError
	if !errors.As(err, &be) {
		return &stop{StopCancelled, t.written(), err}
	}
	answer := "Stopped: " + be.Error() + "."
	if w := t.written(); w != "" {
		answer = w + "\n\n" + answer
	}
	return &stop{StopBudget, answer, be.err}
}

// written is the text of the turn's responses so far, one paragraph each.
func (t *turn) written() string { return strings.Join(t.wrote, "\n\n") }
