package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
)

func TestARetryThatDiscardsShownTextSaysSo(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	d.m.handleEvent(loop.TextDelta{Text: "A partial answer"})
	partial := d.m.current
	d.m.handleEvent(loop.Retry{Attempt: 1, Max: 4, Delay: time.Second, Err: "the model's stream was cut off", Discarded: true})
	d.m.handleEvent(loop.TextDelta{Text: "The whole answer."})
	screen := d.screen()
	if !strings.Contains(screen, "partial answer above is discarded") || !strings.Contains(screen, "The whole answer.") {
		t.Errorf("screen:\n%s", screen)
	}
	if d.m.current == partial {
		t.Error("the retried answer went on in the discarded message")
	}
}

// Retries of one request show as one note that each retry updates, and the
// note goes once the retried request answers.
func TestRetriesShowOneLineThatGoesOnSuccess(t *testing.T) {
	d := newDriver(t, config(t, fake.New(), t.TempDir(), nil))
	before := d.m.chat.len()
	for i := 1; i <= 3; i++ {
		d.m.handleEvent(loop.Retry{Attempt: i, Max: 4, Delay: time.Duration(i) * time.Second, Err: "429 Too Many Requests"})
	}
	screen := d.screen()
	if n := strings.Count(screen, "Retrying in"); n != 1 || !strings.Contains(screen, "Retrying in 3s (3/4)") {
		t.Errorf("want one retry line showing the latest attempt, got %d:\n%s", n, screen)
	}
	if d.m.chat.len() != before+1 {
		t.Errorf("the retries added %d items, want 1", d.m.chat.len()-before)
	}
	d.m.handleEvent(loop.TextDelta{Text: "Finally, an answer."})
	screen = d.screen()
	if strings.Contains(screen, "Retrying") || !strings.Contains(screen, "Finally, an answer.") {
		t.Errorf("the retry line should go once the answer streams:\n%s", screen)
	}
	if d.m.chat.len() != before+1 { // the answer only
		t.Errorf("after the answer the pane has %d new items, want 1", d.m.chat.len()-before)
	}
}
