package sdkstream

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// A host that streams many user messages while the first turn waits for
// can_use_tool's answer still gets its answer read: queued messages never
// stop standard input from being read (control responses, interrupt).
func TestManyQueuedMessagesDoNotBlockControlResponses(t *testing.T) {
	var h *host
	verdict := make(chan Verdict, 1)
	turns := 0
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		turns++
		first := turns == 1
		ch := make(chan loop.Event)
		go func() {
			defer close(ch)
			if first {
				v, err := h.srv.CanUseTool(ctx, "bash", json.RawMessage(`{"command":"ls"}`), "c1", "")
				if err != nil {
					t.Errorf("CanUseTool: %v", err)
				}
				verdict <- v
			}
			ch <- loop.Done{Reason: loop.StopAnswered}
		}()
		return ch
	}
	h = newHost(t, Config{Turn: turnFn, Init: Init{SessionID: "s"}})
	h.send(user("go"))
	msgs := h.until("control_request")
	id := msgs[len(msgs)-1]["request_id"].(string)
	const queued = 200
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range queued {
			if _, err := io.WriteString(h.in, user("more "+strconv.Itoa(i))+"\n"); err != nil {
				return
			}
		}
		_, _ = io.WriteString(h.in, `{"type":"control_response","response":{"subtype":"success","request_id":"`+id+
			`","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`+"\n")
	}()
	select {
	case v := <-verdict:
		if !v.Allow {
			t.Errorf("verdict %+v", v)
		}
	case <-time.After(time.Minute): // a bound for the failure, not a synchronisation
		t.Fatal("can_use_tool's answer was never read: standard input stopped being read behind the queued messages")
	}
	results := 0
	for results < queued+1 {
		if h.next()["type"] == "result" {
			results++
		}
	}
	<-sent
}
