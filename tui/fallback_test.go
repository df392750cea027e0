package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

func twoClaudes(model string) (providers.Price, bool) {
	switch model {
	case "claude-sonnet-4-5":
		return providers.Price{Input: 3, Output: 15}, true
	case "claude-haiku-4-5":
		return providers.Price{Input: 1, Output: 5}, true
	}
	return providers.Price{}, false
}

// TestAFallbackIsShownAndEachModelIsPricedAtItsOwn: the retry note gives
// way to the fallback's note, the failed attempt's text is said to be
// discarded, and /cost counts each model's tokens at its price.
func TestAFallbackIsShownAndEachModelIsPricedAtItsOwn(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Model, cfg.Price = "claude-sonnet-4-5", twoClaudes
	d := newDriver(t, cfg)
	d.m.handleEvent(loop.Usage{Step: 1, Usage: providers.Usage{InputTokens: 1000, OutputTokens: 100}, Model: "claude-sonnet-4-5"})
	d.m.handleEvent(loop.TextDelta{Text: "Half of"})
	d.m.handleEvent(loop.Retry{Attempt: 1, Max: 1, Delay: time.Second, Err: "the model server answered HTTP 529: Overloaded"})
	d.m.handleEvent(loop.FellBack{From: "claude-sonnet-4-5", To: "claude-haiku-4-5", Err: "the model server answered HTTP 529: Overloaded", Discarded: true})
	d.m.handleEvent(loop.TextDelta{Text: "The fallback's answer."})
	d.m.handleEvent(loop.Usage{Step: 2, Usage: providers.Usage{InputTokens: 2000, OutputTokens: 200}, Model: "claude-haiku-4-5"})
	screen := d.screen()
	for _, want := range []string{"claude-sonnet-4-5 failed after its retries", "goes on with claude-haiku-4-5", "partial answer above is discarded", "The fallback's answer."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "Retrying in") {
		t.Errorf("the retry note stayed:\n%s", screen)
	}
	// sonnet $0.0030 + $0.0015, haiku $0.0020 + $0.0010
	r := d.m.cost.report()
	for _, want := range []string{"Cost $0.0075", "claude-sonnet-4-5: 1k input, 100 output tokens, $0.0045", "claude-haiku-4-5: 2k input, 200 output tokens, $0.0030"} {
		if !strings.Contains(r, want) {
			t.Errorf("/cost lacks %q:\n%s", want, r)
		}
	}
}

// TestAFallbackAfterARetryThatVoidedTextSaysItIsDiscarded: the first
// attempt streamed text and failed, its retry streamed nothing and failed
// too: the fallback's note still says the text above is void (the retry
// note that said so gives way to it).
func TestAFallbackAfterARetryThatVoidedTextSaysItIsDiscarded(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	d := newDriver(t, cfg)
	d.m.handleEvent(loop.TextDelta{Text: "Half of"})
	d.m.handleEvent(loop.Retry{Attempt: 1, Max: 1, Delay: time.Second, Err: "the model server answered HTTP 529: Overloaded", Discarded: true})
	d.m.handleEvent(loop.FellBack{From: "claude-sonnet-4-5", To: "claude-haiku-4-5", Err: "the model server answered HTTP 529: Overloaded"})
	d.m.handleEvent(loop.TextDelta{Text: "The fallback's answer."})
	if screen := d.screen(); !strings.Contains(screen, "partial answer above is discarded") {
		t.Errorf("the half answer shows as if it stood:\n%s", screen)
	}
}
