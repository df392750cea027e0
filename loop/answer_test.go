package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// wantsNumber accepts an answer that is a JSON number, as a schema check
// would; anything else is rejected with a validation error.
func wantsNumber(_ context.Context, answer string) (json.RawMessage, error) {
	var n float64
	if err := json.Unmarshal([]byte(strings.TrimSpace(answer)), &n); err != nil {
		return nil, errors.New("want a number: " + err.Error())
	}
	return json.RawMessage(strings.TrimSpace(answer)), nil
}

// lastUser is the text of the last message of a request, which must be
// the user's.
func lastUser(t *testing.T, req providers.Request) string {
	t.Helper()
	last := req.Messages[len(req.Messages)-1]
	if last.Role != providers.RoleUser {
		t.Fatalf("the request ends with a %s message", last.Role)
	}
	return last.Text()
}

func TestARejectedAnswerIsCorrectedOnceThenAccepted(t *testing.T) {
	f := newFixture(t, loop.Config{CheckAnswer: wantsNumber, AnswerCorrections: 3}, nil,
		fake.Text("It is forty-two."), fake.Text("42"), fake.Text("never asked"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("how many?")))
	if done.Reason != loop.StopAnswered || done.Answer != "42" || string(done.Structured) != "42" || done.Steps != 2 || done.Err != nil {
		t.Fatalf("done %+v", done)
	}
	reqs := f.provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (one correction)", len(reqs))
	}
	if got := lastUser(t, reqs[1]); !strings.Contains(got, "not accepted: want a number") {
		t.Errorf("the correction is %q, want it to carry the check's error", got)
	}
}

func TestAnAnswerNeverAcceptedEndsTheTurnAfterTheCorrections(t *testing.T) {
	for _, n := range []int{0, 2} {
		f := newFixture(t, loop.Config{CheckAnswer: wantsNumber, AnswerCorrections: n}, nil,
			fake.Text("one"), fake.Text("two"), fake.Text("three"), fake.Text("never asked"))
		_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("how many?")))
		if done.Reason != loop.StopStructuredOutput || done.Structured != nil || done.Steps != n+1 {
			t.Fatalf("%d corrections: done %+v", n, done)
		}
		if done.Err == nil || !strings.Contains(done.Err.Error(), "want a number") {
			t.Errorf("%d corrections: the error %v should say what is still wrong", n, done.Err)
		}
		if reqs := f.provider.Requests(); len(reqs) != n+1 {
			t.Errorf("%d corrections: %d requests", n, len(reqs))
		}
	}
}

func TestAnswersAreNotCheckedWithoutACheck(t *testing.T) {
	f := newFixture(t, loop.Config{}, nil, fake.Text("plain words"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("hi")))
	if done.Reason != loop.StopAnswered || done.Structured != nil {
		t.Errorf("done %+v", done)
	}
}

// The Stop hook is asked only about an accepted answer, and may still send
// the model on; the value is the answer the turn ends on.
func TestStopHooksSeeOnlyAcceptedAnswers(t *testing.T) {
	var asked []string
	cfg := loop.Config{CheckAnswer: wantsNumber, AnswerCorrections: 3, BeforeStop: func(_ context.Context, s loop.StopCheck) string {
		asked = append(asked, s.Answer)
		if s.Active {
			return ""
		}
		return "count again"
	}}
	f := newFixture(t, cfg, nil, fake.Text("many"), fake.Text("41"), fake.Text("42"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("how many?")))
	if done.Reason != loop.StopAnswered || string(done.Structured) != "42" || done.Steps != 3 {
		t.Fatalf("done %+v", done)
	}
	if len(asked) != 2 || asked[0] != "41" || asked[1] != "42" {
		t.Errorf("the Stop hook saw %q, want the two accepted answers", asked)
	}
	if got := lastUser(t, f.provider.Requests()[2]); got != "count again" {
		t.Errorf("the third request ends with %q, the Stop hook's words", got)
	}
}

// Corrections count against the step limit.
func TestCorrectionsStopAtTheStepLimit(t *testing.T) {
	f := newFixture(t, loop.Config{MaxSteps: 1, CheckAnswer: wantsNumber, AnswerCorrections: 3}, nil,
		fake.Text("one"), fake.Text("never asked"))
	_, done := collect(f.loop.Run(context.Background(), f.conv, providers.UserText("how many?")))
	if done.Reason != loop.StopMaxSteps || done.Structured != nil {
		t.Errorf("done %+v", done)
	}
}

func TestNegativeAnswerCorrectionsAreRefused(t *testing.T) {
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loop.New(loop.Config{Provider: fake.New(), Model: "m", Catalog: picker.New(reg, picker.ModePick), AnswerCorrections: -1}); err == nil {
		t.Error("loop.New took -1 answer corrections")
	}
}
