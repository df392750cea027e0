package tui

import (
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
)

func TestDrainWaitsForTheLoopToClose(t *testing.T) {
	ch := make(chan loop.Event)
	go func() {
		for range 3 {
			ch <- loop.TextDelta{Text: "x"} // the loop still reports while its tools stop
		}
		close(ch)
	}()
	if !drain(ch, time.Minute) {
		t.Errorf("drain gave up before the channel closed")
	}
	if drain(make(chan loop.Event), time.Millisecond) {
		t.Errorf("drain reported a close of a channel that never closed")
	}
}
