package host

import (
	"context"
	"testing"
	"time"
)

// The idle notification comes once a turn ended and the wait is over,
// for that turn's session; a turn that starts stops the wait, and so
// does closing.
func TestIdleNotifierWaitsFromTheTurnsEnd(t *testing.T) {
	heard := make(chan string, 4)
	n := &idleNotifier{after: time.Millisecond, notify: func(session string) { heard <- session }}
	n.watch("s1", true)
	n.mu.Lock()
	if n.timer != nil {
		t.Error("a running turn started the wait")
	}
	n.mu.Unlock()
	n.watch("s1", false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	select {
	case s := <-heard:
		if s != "s1" {
			t.Errorf("heard of session %q, want s1", s)
		}
	case <-ctx.Done():
		t.Fatal("no notification after the turn ended")
	}

	n.after = time.Hour
	n.watch("s2", false)
	n.watch("s2", true)
	n.mu.Lock()
	if n.timer != nil {
		t.Error("the next turn did not stop the wait")
	}
	n.mu.Unlock()
	n.close()
	n.watch("s2", false)
	n.mu.Lock()
	if n.timer != nil {
		t.Error("a wait started after close")
	}
	n.mu.Unlock()
}
