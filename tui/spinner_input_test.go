package tui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/loop"
)

// TestABatchOfEventsAdvancesTheSpinner checks that while an answer
// streams, each batch of events brings the status line's spinner and
// elapsed time up to date, as the ticks would: the frame is the number of
// tick intervals since the turn started.
func TestABatchOfEventsAdvancesTheSpinner(t *testing.T) {
	m := newBenchModel(t, 100, 30)
	m.running, m.started = true, time.Now().Add(-1250*time.Millisecond)
	ch := make(chan loop.Event, 1)
	// The turn's age is read inside Update: on a busy machine it may be
	// later than 1.25 s, so the frames of its age before and after are
	// all right.
	lo := time.Since(m.started)
	m.Update(eventsMsg{ch, []loop.Event{loop.TextDelta{Text: "Hello"}}})
	hi := time.Since(m.started)
	line := m.bar.Render(100)
	found := false
	for f := int(lo / tickInterval); f <= int(hi/tickInterval); f++ {
		for s := int(lo.Seconds()); s <= int(hi.Seconds()); s++ {
			found = found || strings.Contains(line, fmt.Sprintf("%s %ds", spinnerFrame(f), s))
		}
	}
	if !found {
		t.Errorf("status line %q, want the spinner's frame and the age of a turn %s to %s old", line, lo, hi)
	}
	if since := time.Since(time.Unix(0, m.spun.Load())); since > hi {
		t.Errorf("the batch did not record the spinner's update (%s ago)", since)
	}
}

// TestTickWaitsWhileBatchesDrawTheSpinner checks that the spinner's tick
// does not come while batches keep the spinner up to date (each would
// cost a View of its own), and comes a tick interval after the last one.
// The last batch is set half a second ahead, while the tick waits: however
// late the machine runs the test, the tick cannot come before it.
func TestTickWaitsWhileBatchesDrawTheSpinner(t *testing.T) {
	var spun atomic.Int64
	start := time.Now()
	spun.Store(start.UnixNano())
	got := make(chan time.Time, 1)
	go func() {
		if msg, ok := tick(7, &spun)().(tickMsg); ok && msg.turn == 7 {
			got <- time.Now()
		}
	}()
	last := start.Add(500 * time.Millisecond)
	spun.Store(last.UnixNano())
	select {
	case at := <-got:
		if at.Sub(last) < tickInterval {
			t.Errorf("the tick came %s after the last batch, want at least %s", at.Sub(last), tickInterval)
		}
	case <-time.After(time.Minute):
		t.Fatal("no tick after the batches stopped")
	}
}

// TestTheInputIsDrawnAgainWhenItChanges checks that the input's lines,
// reused while a turn's events arrive, show a key typed after them and a
// new width.
func TestTheInputIsDrawnAgainWhenItChanges(t *testing.T) {
	m := newBenchModel(t, 100, 30)
	screen := func() string { return ansi.Strip(m.View().Content) }
	if !strings.Contains(screen(), "Ask about this repository") {
		t.Fatalf("no placeholder:\n%s", screen())
	}
	ch := make(chan loop.Event, 1)
	m.Update(eventsMsg{ch, []loop.Event{loop.TextDelta{Text: "An answer."}}})
	if s := screen(); !strings.Contains(s, "Ask about this repository") || !strings.Contains(s, "An answer.") {
		t.Fatalf("after a batch of events:\n%s", s)
	}
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if s := screen(); strings.Contains(s, "Ask about this repository") {
		t.Errorf("the placeholder stayed after a key:\n%s", s)
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
	for i, line := range strings.Split(screen(), "\n") {
		if w := ansi.StringWidth(line); w > 60 {
			t.Errorf("line %d is %d columns wide after a resize to 60: %q", i, w, ansi.Strip(line))
		}
	}
}
