package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// promptAnswerNote is what a prompt hook's question ends with: the shape
// of the answer Claude Code asks its model for.
const promptAnswerNote = "\n\nAnswer with one JSON object and nothing else: {\"ok\": true} when the condition holds, or {\"ok\": false, \"reason\": \"why\"} when it does not."

// judge answers a prompt hook: its prompt, with the event's JSON in place
// of $ARGUMENTS (or after it), goes to the model through r.Judge, and
// the answer decides as a command hook's exit status would: ok (or the
// older decision "approve") is exit 0, not ok (decision "block") is exit
// 2 with the reason as stderr, so that each event blocks as it does for a
// command hook. An answer that is not such JSON is a Failure.
func (r *Runner) judge(ctx context.Context, h Hook, input []byte) Result {
	res := Result{Hook: h, Exit: -1}
	if r.Judge == nil {
		res.Failure = "could not run: no model to judge prompt hooks here"
		return res
	}
	prompt := h.Prompt
	if strings.Contains(prompt, "$ARGUMENTS") {
		prompt = strings.ReplaceAll(prompt, "$ARGUMENTS", string(input))
	} else {
		prompt += "\n\nThe event:\n" + string(input)
	}
	text, err := r.Judge(ctx, prompt+promptAnswerNote)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.Failure = fmt.Sprintf("timed out after %s and was stopped", h.timeout())
		return res
	case ctx.Err() != nil:
		res.Failure = "stopped: the agent's work was cancelled"
		return res
	case err != nil:
		res.Failure = "could not be judged: " + err.Error()
		return res
	}
	var answer struct {
		OK            *bool  `json:"ok"`
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		Continue      *bool  `json:"continue"`
		StopReason    string `json:"stopReason"`
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal([]byte(jsonObject(text)), &answer); err != nil || (answer.OK == nil && answer.Decision == "") {
		res.Failure = fmt.Sprintf("gave no answer: the model's reply is not {\"ok\": ...}: %.200q", text)
		return res
	}
	res.Stdout = text
	if (answer.OK != nil && !*answer.OK) || strings.EqualFold(answer.Decision, "block") {
		res.Exit, res.Stderr = 2, orDefault(answer.Reason, "the prompt hook's condition does not hold")
		return res
	}
	res.Exit = 0
	res.Output = &Output{Continue: answer.Continue, StopReason: answer.StopReason, SystemMessage: answer.SystemMessage}
	return res
}

// jsonObject is the first {...} of text (a model may wrap it in a code
// fence or a sentence).
func jsonObject(text string) string {
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return text
	}
	return text[i : j+1]
}
