package tui

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// Esc while the answer streams: the request is not free in /cost (the
// server billed what it read and wrote; its usage never came, so it is
// estimated), the partial answer goes back to the model marked as cut,
// and a resumed session's screen shows the cut.
func TestAnAnswerCutByEscCostsAndStaysMarked(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras answer before the hold, then more.").WithPieceSize(8).HoldAfterEvents(3, hold))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Model, cfg.Price = "claude-sonnet-4-5", twoClaudes
	d := newDriver(t, cfg)
	d.typeAndSend("tell me about zebras")
	d.untilShows("Zebras")
	d.key("esc")
	d.untilShows("Cancelled.")
	if r := d.m.cost.report(); strings.Contains(r, "$0.0000") || !strings.Contains(r, "Cost $") {
		t.Errorf("/cost after Esc: %s", r)
	}
	msgs := d.m.session.Conv.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != providers.RoleAssistant || !strings.HasSuffix(last.Text(), loop.CancelledMarker) || !strings.HasPrefix(last.Text(), "Zebras") {
		t.Fatalf("the conversation keeps %q", last.Text())
	}
	if strings.Contains(d.screen(), "Interrupted by the user") {
		t.Errorf("the marker shows as text:\n%s", d.screen())
	}

	resumed := config(t, fake.New(), t.TempDir(), nil)
	resumed.Session.Conv = conversation.New("", nil)
	for _, m := range msgs {
		resumed.Session.Conv.Append(t.Context(), m, providers.Usage{})
	}
	r := newDriver(t, resumed)
	screen := r.screen()
	if !strings.Contains(screen, "Zebras") || !strings.Contains(screen, "Cancelled.") || strings.Contains(screen, "Interrupted by the user") {
		t.Errorf("the resumed screen does not show the cut:\n%s", screen)
	}
}
