package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// The close of an earlier turn's channel, arriving after the next turn
// started, must not detach the model from the new turn's events.
func TestStaleCloseOfAnEarlierTurnIsIgnored(t *testing.T) {
	srv := fake.New()
	m, err := New(config(t, srv, t.TempDir(), nil))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	old := make(chan loop.Event)
	close(old)
	m.running, m.events = true, old
	m.Update(eventsMsg{old, []loop.Event{loop.Done{Reason: loop.StopAnswered}}})
	m.submit("second")
	next := make(chan loop.Event, 1)
	m.Update(turnStartedMsg{events: next})
	m.Update(turnClosedMsg{old}) // late
	if m.events != (<-chan loop.Event)(next) {
		t.Errorf("a late close of the earlier turn detached the model from the running turn")
	}
	m.cancelTurn()
}

// A question that arrives as the turn is cancelled is answered no when the
// turn ends, and the prompt works again.
func TestQuestionArrivingAfterCancelIsAnsweredNo(t *testing.T) {
	srv := fake.New()
	m, _ := New(config(t, srv, t.TempDir(), NewApprover()))
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.submit("go")
	ch := make(chan loop.Event)
	m.Update(turnStartedMsg{events: ch})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	req := approvalRequest{call: providers.ToolCall{ID: "b", Name: "bash", Arguments: `{"command":"ls"}`}, reply: make(chan approvalAnswer, 1)}
	m.Update(approvalMsg{req})
	_, cmd := m.Update(eventsMsg{ch, []loop.Event{loop.Done{Reason: loop.StopCancelled}}})
	if m.approving != nil {
		t.Fatalf("after the turn ended the model still waits for an answer")
	}
	runAll(cmd)
	if ans := <-req.reply; ans.allow {
		t.Errorf("the stale question was allowed")
	}
	m.Update(tea.KeyPressMsg{Code: 'h', Text: "h"})
	if m.input.Value() != "h" {
		t.Errorf("typing is swallowed after the turn ended")
	}
}

// runAll runs cmd and the commands of a batch, except those that wait on a
// channel nobody will write (waitEvent, waitApproval): each runs in its own
// goroutine and is left behind.
func runAll(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	if batch, ok := (<-done).(tea.BatchMsg); ok {
		for _, c := range batch {
			go runAll(c)
		}
	}
}

func TestSmallTerminalsGetAViewOfTheirSize(t *testing.T) {
	srv := fake.New()
	for _, sz := range [][2]int{{20, 5}, {20, 3}, {1, 1}, {5, 2}, {80, 8}, {30, 4}} {
		m, _ := New(config(t, srv, t.TempDir(), nil))
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		for _, in := range []string{"", "/", "a long prompt that does not fit in a narrow terminal at all"} {
			m.input.SetValue(in)
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) > sz[1] {
				t.Errorf("%dx%d with input %q: the view has %d lines", sz[0], sz[1], in, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%dx%d with input %q: a line of %d columns: %q", sz[0], sz[1], in, w, ansi.Strip(l))
				}
			}
		}
	}
}

func TestClearWhileStreamingKeepsShowingTheAnswer(t *testing.T) {
	hold := make(chan struct{})
	srv := fake.New(fake.Text("Zebras come first, and after a long pause the Giraffes arrive.").WithPieceSize(8).HoldAfterEvents(3, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.untilShows("Zebras")
	d.typeAndSend("/clear")
	close(hold)
	d.until("turn end", func(string) bool { return !d.m.running })
	if !strings.Contains(d.screen(), "Giraffes") {
		t.Errorf("the rest of the answer after /clear is not shown:\n%s", d.screen())
	}
}
