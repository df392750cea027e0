package sdkstream

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// The result of a turn whose answer matched the schema (the SDK's
// outputFormat) carries the value as structured_output; one whose answers
// never did is error_max_structured_output_retries.
func TestStructuredOutputInTheResult(t *testing.T) {
	turnFn := func(_ context.Context, p turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event, 1)
		if p.Message.Text() == "valid" {
			ch <- loop.Done{Answer: `{"n": 1}`, Reason: loop.StopAnswered, Steps: 2, Structured: json.RawMessage(`{"n":1}`)}
		} else {
			ch <- loop.Done{Answer: "one", Reason: loop.StopStructuredOutput, Steps: 4, Err: errors.New("still not a number")}
		}
		close(ch)
		return ch
	}
	h := newHost(t, Config{Turn: turnFn})
	h.send(user("valid"))
	msgs := h.until("result")
	res := msgs[len(msgs)-1]
	if res["subtype"] != "success" || res["is_error"] != false || res["structured_output"].(map[string]any)["n"] != 1.0 {
		t.Errorf("the valid answer's result %v", res)
	}
	h.send(user("never"))
	msgs = h.until("result")
	res = msgs[len(msgs)-1]
	errs, _ := res["errors"].([]any)
	if res["subtype"] != "error_max_structured_output_retries" || res["is_error"] != true || res["structured_output"] != nil ||
		len(errs) != 1 || errs[0] != "structured_output_retries: still not a number" {
		t.Errorf("the rejected answers' result %v", res)
	}
}
