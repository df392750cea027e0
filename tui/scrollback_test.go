package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/providers/fake"
)

func TestFarewellKeepsTheConversationQueueAndResumeCommand(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Walruses first.").WithPieceSize(4).HoldAfterEvents(2, hold))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Sessions = nopSessions{}
	d := newDriver(t, cfg)
	d.typeAndSend("one")
	d.untilShows("Walr")
	d.typeAndSend("never sent")
	got := ansi.Strip(d.m.farewell())
	for _, want := range []string{"❯ one", "Walr", "not sent (was queued): never sent", "Resume this session with: agent -r s1"} {
		if !strings.Contains(got, want) {
			t.Errorf("farewell lacks %q:\n%s", want, got)
		}
	}
}

func TestFarewellOfAnEmptyUnsavedSessionIsEmpty(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	if got := d.m.farewell(); got != "" {
		t.Errorf("farewell = %q, want nothing", got)
	}
}

// nopSessions is a session store that keeps nothing.
type nopSessions struct{ Sessions }

// Quitting while a question waits leaves no live menu in the scrollback:
// the call shows as denied (quitting denied it), and a queued prompt as
// not sent.
func TestFarewellAtAWaitingQuestionShowsItUnanswered(t *testing.T) {
	srv := fake.New(fake.ToolCalls(fake.Call{ID: "b", Name: "bash", Arguments: `{"command":"make walrus"}`}))
	cfg := config(t, srv, t.TempDir(), NewApprover())
	cfg.Sessions = nopSessions{}
	d := newDriver(t, cfg)
	d.typeAndSend("build it")
	d.until("the question", func(string) bool { return d.m.approving != nil })
	d.typeAndSend("then test it")
	d.typeAndSend("/quit")
	if !d.quit {
		d.until("quit", func(string) bool { return d.quit })
	}
	got := ansi.Strip(d.m.farewell())
	for _, bad := range []string{"Allow once", "Typing goes to the prompt", "Allow bash to run"} {
		if strings.Contains(got, bad) {
			t.Errorf("farewell shows the live question (%q):\n%s", bad, got)
		}
	}
	for _, want := range []string{"bash make walrus  denied", "not sent (was queued): then test it"} {
		if !strings.Contains(got, want) {
			t.Errorf("farewell lacks %q:\n%s", want, got)
		}
	}
}
