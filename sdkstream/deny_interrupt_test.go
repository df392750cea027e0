package sdkstream

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/turn"
)

// canUseTool answered {behavior: "deny", interrupt: true} (the SDK's
// PermissionResult) stops the turn as an interrupt does, where a plain
// denial lets the model go on.
func TestDenyWithInterruptStopsTheTurn(t *testing.T) {
	var srv *Server
	stopped := make(chan bool, 2)
	turnFn := func(ctx context.Context, p turn.Prompt) <-chan loop.Event {
		ch := make(chan loop.Event)
		go func() {
			defer close(ch)
			if _, err := srv.CanUseTool(ctx, "bash", json.RawMessage(`{"command":"rm -rf build"}`), "c1", ""); err != nil {
				t.Errorf("CanUseTool: %v", err)
			}
			stopped <- ctx.Err() != nil
			ch <- loop.Done{Reason: loop.StopAnswered}
		}()
		return ch
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv = New(Config{In: inR, Out: outW, Turn: turnFn, Init: Init{SessionID: "s"}})
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), nil); outW.Close() }()
	h := &host{t: t, in: inW, out: bufio.NewScanner(outR)}
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
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Error(err)
	}
}
