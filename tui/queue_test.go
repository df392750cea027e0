package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/providers/fake"
)

// userTexts returns the text of each user message of the conversation.
func userTexts(d *driver) []string {
	var out []string
	for _, m := range d.m.session.Conv.Messages() {
		if m.Role == "user" {
			out = append(out, m.Text())
		}
	}
	return out
}

func TestPromptsSentDuringATurnAreQueuedAndSentInOrder(t *testing.T) {
	hold := make(chan struct{})
	srv := fake.New(
		fake.Text("Walruses first.").WithPieceSize(4).HoldAfterEvents(2, hold),
		fake.Text("Second answer."),
		fake.Text("Third answer."),
	)
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("one")
	d.untilShows("Walr")
	d.typeAndSend("two")
	d.typeAndSend("three")
	s := d.screen()
	if !strings.Contains(s, "↳ queued: two") || !strings.Contains(s, "↳ queued: three") {
		t.Fatalf("the queued prompts are not shown:\n%s", s)
	}
	if d.m.input.Value() != "" {
		t.Errorf("the input keeps %q after queueing", d.m.input.Value())
	}
	close(hold)
	d.untilShows("Third answer.")
	d.until("the last turn's end", func(string) bool { return !d.m.running })
	if got := userTexts(d); strings.Join(got, "|") != "one|two|three" {
		t.Errorf("prompts sent = %q, want one, two, three in order", got)
	}
	if strings.Contains(d.screen(), "queued:") {
		t.Errorf("the queue is still shown after it was sent:\n%s", d.screen())
	}
}

func TestAQueuedPromptCanBeEditedAndDropped(t *testing.T) {
	hold := make(chan struct{})
	srv := fake.New(
		fake.Text("Walruses first.").WithPieceSize(4).HoldAfterEvents(2, hold),
		fake.Text("Edited answer."),
	)
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("one")
	d.untilShows("Walr")
	d.typeAndSend("drop me")
	d.typeAndSend("tpyo")
	d.key("up") // the newest queued prompt comes back into the input
	if d.m.input.Value() != "tpyo" || d.m.queue.len() != 1 {
		t.Fatalf("up on an empty input: input %q, %d queued; want tpyo back and 1 left", d.m.input.Value(), d.m.queue.len())
	}
	d.m.input.Reset()
	d.typeAndSend("typo fixed")
	// ctrl+x drops the newest: "typo fixed"; then "drop me" is newest.
	d.update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	d.update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	if d.m.queue.len() != 0 {
		t.Fatalf("%d queued after dropping both", d.m.queue.len())
	}
	d.typeAndSend("kept")
	close(hold)
	d.untilShows("Edited answer.")
	d.until("the last turn's end", func(string) bool { return !d.m.running })
	if got := userTexts(d); strings.Join(got, "|") != "one|kept" {
		t.Errorf("prompts sent = %q, want one, kept", got)
	}
}

func TestCancellingKeepsTheQueueUntilEnter(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(
		fake.Text("Walruses first.").WithPieceSize(4).HoldAfterEvents(2, hold),
		fake.Text("Queued answer."),
	)
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("one")
	d.untilShows("Walr")
	d.typeAndSend("later")
	d.key("esc")
	d.untilShows("The queued prompt waits")
	if !strings.Contains(d.screen(), "↳ queued: later") || d.m.running {
		t.Fatalf("after Esc the queued prompt should wait, shown, with no turn running:\n%s", d.screen())
	}
	d.key("enter") // an empty input sends the next queued prompt
	d.untilShows("Queued answer.")
	if got := userTexts(d); len(got) != 2 || got[1] != "later" {
		t.Errorf("prompts sent = %q", got)
	}
}

// The note that a queued prompt waits goes once Ctrl+X dropped it: no
// stale line says a prompt waits when none does.
func TestDroppingTheLastQueuedPromptTakesItsNoteAway(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Walruses first.").WithPieceSize(4).HoldAfterEvents(2, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("one")
	d.untilShows("Walr")
	d.typeAndSend("later")
	d.typeAndSend("much later")
	d.key("esc")
	d.untilShows("2 queued prompts wait")
	d.key("ctrl+x")
	if s := d.screen(); strings.Contains(s, "2 queued prompts wait") || !strings.Contains(s, "The queued prompt waits") {
		t.Fatalf("after dropping one of two, the note should count one:\n%s", s)
	}
	d.key("ctrl+x")
	if s := d.screen(); strings.Contains(s, "queued prompt") {
		t.Errorf("after dropping the last, a note still says a prompt waits:\n%s", s)
	}
}
