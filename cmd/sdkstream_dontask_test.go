package cmd

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sdkstream"
	"github.com/agent-dev/agent/tools"
)

// In the SDK's dontAsk mode what is not pre-approved is denied without a
// can_use_tool request to the host (Claude Code's meaning of the mode);
// the other modes ask the host.
func TestSDKDontAskDeniesWithoutAsking(t *testing.T) {
	var dontAsk atomic.Bool
	dontAsk.Store(true)
	asked := false
	ask := sdkAsker{srv: func() *sdkstream.Server { asked = true; return nil }, dontAsk: &dontAsk}
	q := host.Question{Req: loop.Approval{Call: providers.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}},
		Def: tools.Definition{Name: "bash", Effects: tools.RunsCommands}, Reason: "a command"}
	func() {
		defer func() { _ = recover() }() // a nil server, if it was asked
		if d := ask.Ask(context.Background(), q); d.Allow {
			t.Errorf("dontAsk allowed the call: %+v", d)
		}
	}()
	if asked {
		t.Error("dontAsk asked the host")
	}
	if mode, err := sdkPermissionMode("dontAsk"); err != nil || mode != host.ModeAsk {
		t.Errorf("dontAsk is agent's %q, %v", mode, err)
	}
}
