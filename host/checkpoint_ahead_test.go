package host_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/turn"
)

// The turn's checkpoint is taken ahead of its end, as the request after a
// call that changed files goes out; what changes after that (a process
// the turn left running, the person's editor) is still in the turn's end.
func TestTheTurnsEndHoldsWhatChangedAfterTheCheckpointTakenAhead(t *testing.T) {
	ahead := make(chan struct{}, 8)
	var f *fixture
	n := 0
	model := fake.NewFunc(func(providers.Request) fake.Reply {
		n++
		switch n {
		case 1:
			return fake.ToolCalls(call("c1", "write_file", writeArgs("a.txt", "agent a\n")))
		case 2:
			// The checkpoint ahead of the end was taken as this request
			// went out; late.txt comes after it.
			select {
			case <-ahead:
			case <-time.After(time.Minute): // a guard, not a wait: the event comes first
				t.Error("no checkpoint was taken ahead of the turn's end")
			}
			if err := os.WriteFile(f.path("late.txt"), []byte("late\n"), 0o644); err != nil {
				t.Error(err)
			}
			return fake.Text("made a")
		}
		return fake.Text("again")
	})
	f = newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	s.OnCheckpointAhead(func() { ahead <- struct{}{} })
	runTurn(t, s, "make a")
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || !slices.Equal(cps[0].Changed, []string{"a.txt", "late.txt"}) {
		t.Fatalf("checkpoints = %+v, want one whose turn changed [a.txt late.txt]", cps)
	}
	// Rewound to its start, the turn's files go, late.txt with them (it
	// was made during the turn).
	if _, err := s.Rewind(t.Context(), host.RewindRequest{To: "1", Scope: host.ScopeCode}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.path("a.txt")) != "<missing>" || read(t, f.path("late.txt")) != "<missing>" {
		t.Fatalf("after the rewind: a %q, late %q", read(t, f.path("a.txt")), read(t, f.path("late.txt")))
	}
}

// Steps that each change a file go out before the checkpoint taken ahead
// of the last one ended: the turn's end holds every change.
func TestCheckpointsTakenAheadOfStepsInARowHoldEveryChange(t *testing.T) {
	f := newFixture(t, fake.New(
		fake.ToolCalls(call("c1", "write_file", writeArgs("a.txt", "a\n"))),
		fake.ToolCalls(call("c2", "write_file", writeArgs("b.txt", "b\n"))),
		fake.ToolCalls(call("c3", "write_file", writeArgs("c.txt", "c\n"))),
		fake.Text("made a, b and c"),
	), "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "make a, b and c")
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || !slices.Equal(cps[0].Changed, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Fatalf("checkpoints = %+v, want one whose turn changed [a.txt b.txt c.txt]", cps)
	}
}

// A turn cancelled before its request went out (no event of its step came)
// keeps its prompt's checkpoint, taken as the turn ends, and warns of
// nothing: the prompt is a restore point all the same.
func TestATurnCancelledBeforeItsRequestKeepsItsCheckpoint(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	model := fake.New(fake.Text("never streamed").HoldAfterEvents(0, release))
	f := newFixture(t, model, "")
	var mu sync.Mutex
	var warnings []string
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo, Warn: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, msg)
	}})
	ctx, cancel := context.WithCancel(t.Context())
	events := s.Turn(ctx, turn.Text("look"))
	if err := model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	var done loop.Done
	for ev := range events {
		if d, ok := ev.(loop.Done); ok {
			done = d
		}
	}
	if done.Reason != loop.StopCancelled {
		t.Fatalf("done %+v, want cancelled", done)
	}
	cps, err := s.Checkpoints(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 {
		t.Errorf("checkpoints = %+v, want the cancelled prompt's", cps)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
}
