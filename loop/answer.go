package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agent-dev/agent/providers"
)

// AnswerCheckFunc checks the model's final answer (its text when it
// answered without calling a tool) against a required form, such as a
// JSON Schema (--json-schema). It returns the answer's value (one JSON
// value, as the front-ends print it) when the answer has the form, else
// an error saying what is wrong, written for the model and the person
// alike ("at /properties/n: type: "x" has type "string", want
// "integer""): every error is a rejection, which the model is asked to
// correct. It must return promptly when ctx is cancelled, and be safe for
// concurrent use (a loop serves several conversations).
type AnswerCheckFunc func(ctx context.Context, answer string) (json.RawMessage, error)

// correctionPrompt is the user message that sends a rejected answer back;
// %v is the check's error.
const correctionPrompt = "Your final answer was not accepted: %v\n\n" +
	"Answer again with the final answer alone, in the required form, and nothing before or after it."

// answered decides what becomes of text, the final answer of step (no
// tool calls, not cut, not paused): with Config.CheckAnswer, an answer it
// rejects goes back to the model with the error as a user message (the
// turn goes on), at most Config.AnswerCorrections times a turn; the next
// rejection ends the turn with StopStructuredOutput. An accepted answer
// (or any answer without a check) is then asked of Config.BeforeStop,
// which may send the model on. It returns nil when the turn goes on.
func (t *turn) answered(step int, text string) *stop {
	var value json.RawMessage
	if t.cfg.CheckAnswer != nil {
		var err error
		value, err = t.cfg.CheckAnswer(t.ctx, text)
		switch {
		case t.ctx.Err() != nil:
			return &stop{StopCancelled, text, t.ctx.Err()}
		case err == nil && value != nil:
		case t.corrections >= t.cfg.AnswerCorrections:
			return &stop{StopStructuredOutput, text, fmt.Errorf("the answer was rejected after %d corrections: %w", t.corrections, rejection(err))}
		default:
			t.corrections++
			if err := t.record(userMessage(fmt.Sprintf(correctionPrompt, rejection(err))), providers.Usage{}); err != nil {
				return &stop{StopError, text, err}
			}
			return nil
		}
	}
	more, err := t.beforeStop(step, text)
	if err != nil {
		return &stop{StopError, text, err}
	}
	if more {
		return nil
	}
	t.value = value
	return &stop{StopAnswered, text, nil}
}

// rejection is a check's error, or a plain one for a check that returned
// neither a value nor an error.
func rejection(err error) error {
	if err == nil {
		return errNoValue
	}
	return err
}

// errNoValue is the rejection of an answer whose check gave no value.
var errNoValue = errors.New("it has no value in the required form")
