package loop_test

import (
	"context"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// writingACall streams the start of a tool call (a long write_file, say;
// with call false, nothing), then the person cancels the turn; as a server
// whose usage comes only at the end of the stream, it reports none.
type writingACall struct {
	call   bool
	cancel context.CancelFunc
}

func (p writingACall) Stream(ctx context.Context, _ providers.Request, onEvent func(providers.StreamEvent)) (*providers.Response, error) {
	if p.call {
		onEvent(providers.ToolCallBegin{ID: "w1", Name: "write_file"})
	}
	p.cancel()
	<-ctx.Done()
	return &providers.Response{Message: providers.Message{Role: providers.RoleAssistant}}, ctx.Err()
}

// Esc while the model writes a tool call's arguments: the request streamed,
// so the server billed at least what it read; its usage never came, so
// the turn's usage estimates the input rather than counting it free. A
// request cancelled before anything streamed is counted as nothing.
func TestACancelledRequestThatBeganACallIsNotFree(t *testing.T) {
	for _, call := range []bool{true, false} {
		reg, err := tools.NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		l, err := loop.New(loop.Config{Provider: writingACall{call: call, cancel: cancel}, Model: "m", Catalog: picker.New(reg, picker.ModePick)})
		if err != nil {
			t.Fatal(err)
		}
		var done loop.Done
		for ev := range l.Run(ctx, conversation.New("a system prompt of some length", nil), providers.UserText("write the file")) {
			if d, ok := ev.(loop.Done); ok {
				done = d
			}
		}
		cancel()
		if done.Reason != loop.StopCancelled {
			t.Fatalf("call %v: done %+v", call, done)
		}
		if got := done.Usage.InputTokens > 0; got != call {
			t.Errorf("call %v: the turn's usage %+v", call, done.Usage)
		}
	}
}
