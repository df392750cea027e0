package tui

import (
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
)

// TestWaitEventCoalescesAFrame checks that the deltas arriving before the
// next frame is due reach the model as one message (one View), not before
// the frame, and that a closed channel still ends the turn.
func TestWaitEventCoalescesAFrame(t *testing.T) {
	ch := make(chan loop.Event, 64)
	ch <- loop.TextDelta{Text: "a"}
	notBefore := time.Now().Add(200 * time.Millisecond)
	got := make(chan eventsMsg, 1)
	go func() { got <- waitEvent(ch, notBefore)().(eventsMsg) }()
	// Sent while waitEvent waits for the frame (200 ms is ample).
	ch <- loop.TextDelta{Text: "b"}
	ch <- loop.TextDelta{Text: "c"}
	msg := <-got
	if time.Now().Before(notBefore) {
		t.Error("the batch was delivered before its frame")
	}
	var text string
	for _, ev := range msg.evs {
		text += ev.(loop.TextDelta).Text
	}
	if text != "abc" {
		t.Errorf("one message carried %q, want all three deltas", text)
	}
	close(ch)
	if _, ok := waitEvent(ch, time.Time{})().(turnClosedMsg); !ok {
		t.Error("a closed channel did not give turnClosedMsg")
	}
}

// TestNextFrame checks when the batch after a message may come: a frame
// later, unless the events come faster than the channel buffers (or it
// buffers none), when waiting would hold the loop back.
func TestNextFrame(t *testing.T) {
	now := time.Now()
	buffered := make(chan loop.Event, 4)
	few := eventsMsg{buffered, make([]loop.Event, 3)}
	if got := nextFrame(few, now); !got.Equal(now.Add(frameInterval)) {
		t.Errorf("after a few events: %v, want a frame later", got.Sub(now))
	}
	full := eventsMsg{buffered, make([]loop.Event, 5)}
	if got := nextFrame(full, now); !got.IsZero() {
		t.Errorf("after a full buffer: %v, want no wait", got.Sub(now))
	}
	unbuffered := eventsMsg{make(chan loop.Event), make([]loop.Event, 1)}
	if got := nextFrame(unbuffered, now); !got.IsZero() {
		t.Errorf("on an unbuffered channel: %v, want no wait", got.Sub(now))
	}
}
