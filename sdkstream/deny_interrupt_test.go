package sdkstream

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// canUseTool answered {behavior: "deny", interrupt: true} (the SDK's
// PermissionResult) stops the turn as an interrupt does, where a plain
// denial lets the model go on.
func TestDenyWithInterruptStopsTheTurn(t *testing.T) {
	var h *host
	stopped := make(chan bool, 2)
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event)
		go func() {
			defer close(ch)
			if _, err := h.srv.CanUseTool(ctx, "bash", json.RawMessage(`{"command":"rm -rf build"}`), "c1", ""); err != nil {
				t.Errorf("CanUseTool: %v", err)
			}
			stopped <- ctx.Err() != nil
			ch <- loop.Done{Reason: loop.StopAnswered}
		}()
		return ch
	}
	h = newHost(t, Config{Turn: turnFn, Init: Init{SessionID: "s"}})
	for _, c := range []struct {
		answer string
		stop   bool
	}{{`{"behavior":"deny","message":"no"}`, false}, {`{"behavior":"deny","message":"stop there","interrupt":true}`, true}} {
		h.send(user("go"))
		msgs := h.until("control_request")
		id := msgs[len(msgs)-1]["request_id"].(string)
		h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":` + c.answer + `}}`)
		if got := <-stopped; got != c.stop {
			t.Errorf("answer %s: the turn was stopped %v, want %v", c.answer, got, c.stop)
		}
		h.until("result")
	}
}
