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
