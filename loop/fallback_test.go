package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

var overloaded = &providers.APIError{StatusCode: 529, Message: "Overloaded", Retryable: true}

// TestAnOverloadedModelHandsTheTurnToItsFallback: the first model fails
// with 529 after its retries, the turn finishes on the fallback (another
// provider), every later request of the turn goes there, the usage is
// reported per model, and the next turn starts on the first model again.
func TestAnOverloadedModelHandsTheTurnToItsFallback(t *testing.T) {
	second := fake.New(
		fake.ToolCalls(fake.Call{ID: "1", Name: "look", Arguments: `{}`}).WithUsage(100, 10),
		fake.Text("done").WithUsage(120, 5),
	)
	f := newFixture(t, loop.Config{Fallbacks: []loop.Fallback{{Model: "small", Provider: second}}},
		[]tools.Tool{echo("look", true)}, fake.Error(overloaded), fake.Text("first again").WithUsage(7, 1))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
	if done.Reason != loop.StopAnswered || done.Answer != "done" {
		t.Fatalf("done: %+v", done)
	}
	var fell []loop.FellBack
	models := map[string]int{}
	for _, ev := range evs {
		switch ev := ev.(type) {
		case loop.FellBack:
			fell = append(fell, ev)
		case loop.Usage:
			models[ev.Model] += ev.Usage.InputTokens
		}
	}
	if len(fell) != 1 || fell[0].From != "m" || fell[0].To != "small" || fell[0].Err == "" {
		t.Fatalf("fallbacks: %+v", fell)
	}
	if models["small"] != 220 || models["m"] != 0 {
		t.Errorf("usage by model: %v", models)
	}
	reqs := second.Requests()
	if len(reqs) != 2 || reqs[0].Model != "small" || reqs[1].Model != "small" {
		t.Fatalf("the fallback's requests: %d", len(reqs))
	}
	_, done = collect(f.loop.Run(context.Background(), f.conv, providers.UserText("again")))
	if done.Answer != "first again" {
		t.Fatalf("the next turn: %+v", done)
	}
	if reqs := f.provider.Requests(); reqs[len(reqs)-1].Model != "m" {
		t.Errorf("the next turn asked %q", reqs[len(reqs)-1].Model)
	}
}

// TestOnlyServerTroubleFallsBack: a request the server rejects as the
// request's fault, or a refused key, ends the turn as before; a fallback
// that fails too hands on to the next, and the last one's error ends it.
func TestOnlyServerTroubleFallsBack(t *testing.T) {
	for _, tt := range []struct {
		name     string
		err      error
		fallback bool
	}{
		{"bad request", &providers.APIError{StatusCode: 400, Message: "bad"}, false},
		{"refused key", &providers.APIError{StatusCode: 401, Message: "no"}, false},
		{"stream cut", providers.ErrStreamCut, false},
		{"rate limit", &providers.APIError{StatusCode: 429, Retryable: true}, true},
		{"server error", &providers.APIError{StatusCode: 500, Retryable: true}, true},
		{"not implemented", &providers.APIError{StatusCode: 501}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			second := fake.New(fake.Text("fallback"))
			f := newFixture(t, loop.Config{Fallbacks: []loop.Fallback{{Model: "small", Provider: second}}}, nil, fake.Error(tt.err))
			_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
			if got := done.Answer == "fallback"; got != tt.fallback {
				t.Fatalf("fell back %v, want %v: %+v", got, tt.fallback, done)
			}
			if !tt.fallback && !errors.Is(done.Err, tt.err) {
				t.Errorf("the error: %v", done.Err)
			}
		})
	}
	third := fake.New(fake.Text("third"))
	f := newFixture(t, loop.Config{Fallbacks: []loop.Fallback{{Model: "same-server"}, {Model: "other", Provider: third}}}, nil,
		fake.Error(overloaded), fake.Error(overloaded))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
	if done.Answer != "third" {
		t.Fatalf("%+v", done)
	}
	var to []string
	for _, ev := range evs {
		if fb, ok := ev.(loop.FellBack); ok {
			to = append(to, fb.From+">"+fb.To)
		}
	}
	if len(to) != 2 || to[0] != "m>same-server" || to[1] != "same-server>other" {
		t.Errorf("moves: %v", to)
	}
	if reqs := f.provider.Requests(); len(reqs) != 2 || reqs[1].Model != "same-server" {
		t.Errorf("the same server was asked for %v", reqs)
	}
}

// TestAFallbackThatIsTheModelItselfIsPassedOver: after /model switched to
// a model the fallbacks name (or a profile lists its own model), the turn
// does not fall back to the model that just failed, on the same server:
// it goes to the next fallback, or ends on the error.
func TestAFallbackThatIsTheModelItselfIsPassedOver(t *testing.T) {
	other := fake.New(fake.Text("other"))
	f := newFixture(t, loop.Config{Fallbacks: []loop.Fallback{{Model: "m"}, {Model: "other", Provider: other}}}, nil,
		fake.Error(overloaded), fake.Text("m again"))
	evs, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
	if done.Answer != "other" {
		t.Fatalf("%+v", done)
	}
	for _, ev := range evs {
		if fb, ok := ev.(loop.FellBack); ok && fb.To == "m" {
			t.Errorf("fell back to the model that failed: %+v", fb)
		}
	}
	if reqs := f.provider.Requests(); len(reqs) != 1 {
		t.Errorf("the failed model was asked %d times", len(reqs))
	}
	f = newFixture(t, loop.Config{Fallbacks: []loop.Fallback{{Model: "m"}}}, nil, fake.Error(overloaded), fake.Text("m again"))
	_, done = collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
	if done.Reason != loop.StopError || !errors.Is(done.Err, overloaded) {
		t.Errorf("with only itself as a fallback: %+v", done)
	}
}
