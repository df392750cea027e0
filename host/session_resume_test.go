package host_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
)

// A continued session keeps the system prompt it was created with, though
// AGENTS.md changed since: the model sees the instructions the session's
// history was written under.
func TestContinueKeepsTheStoredSystemPrompt(t *testing.T) {
	model := fake.New(fake.Text("ok"), fake.Text("ok"))
	f := newFixture(t, model, "")
	write(t, f.path("AGENTS.md"), "Indent with tabs.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	runTurn(t, s, "hello")
	s.Close()

	write(t, f.path("AGENTS.md"), "Indent with spaces.\n")
	again := f.open(t, host.Request{Continue: true}, host.FrontEnd{Mode: host.ModeAuto})
	if r := runTurn(t, again, "hello again"); r.done.Reason != loop.StopAnswered {
		t.Fatalf("the turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	first, second := model.Requests()[0].System, model.Requests()[1].System
	if second != first {
		t.Errorf("the continued session's system prompt changed:\n%s\nwant the stored one:\n%s", second, first)
	}
	if !strings.Contains(second, "Indent with tabs.") || strings.Contains(second, "spaces") {
		t.Errorf("the continued session's system prompt has the new AGENTS.md:\n%s", second)
	}
	if !strings.Contains(again.SystemPrompt(), "Indent with spaces.") {
		t.Errorf("a new session's prompt misses the new AGENTS.md:\n%s", again.SystemPrompt())
	}
}

// A session another live process holds (another agent running it) goes on
// in a fork of its history, which the person is told of; ACP's
// session/load refuses it instead, since the protocol cannot answer with
// the fork's id.
func TestResumingASessionAnotherProcessHolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		load bool
	}{
		{"resume forks it", false},
		{"ACP session load refuses it", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.Text("first answer"))
			f := newFixture(t, model, "")
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
			runTurn(t, s, "hello")
			id, want := s.ID(), s.History()
			s.Close()
			other := holdSession(t, f.db, id)

			got, err := f.h.OpenSession(t.Context(), host.Request{Dir: f.dir, Resume: id, Load: tc.load}, host.FrontEnd{Mode: host.ModeAuto})
			if tc.load {
				if err == nil {
					got.Close()
					t.Fatalf("session/load opened session %s, which process %d holds", got.ID(), other.pid())
				}
				if !strings.Contains(err.Error(), "in use") {
					t.Errorf("error %q, want it to say the session is in use", err)
				}
				if ids, err := f.storeSessions(t); len(ids) != 1 || err != nil {
					t.Errorf("sessions in the store: %v (%v), want the held one alone (no fork)", ids, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			if got.ID() == id || !got.Resumed() {
				t.Errorf("opened %s (resumed %v), want a fork of %s", got.ID(), got.Resumed(), id)
			}
			notices := strings.Join(got.Notices(), "\n")
			if !strings.Contains(notices, id) || !strings.Contains(notices, fmt.Sprint(other.pid())) || !strings.Contains(notices, got.ID()) {
				t.Errorf("notices %q, want the held session, its holder and the fork", notices)
			}
			if rolesOf(got.History()) != rolesOf(want) || got.History()[1].Text() != "first answer" {
				t.Errorf("the fork's history is %s, want the session's: %s", rolesOf(got.History()), rolesOf(want))
			}
			rec, err := got.Store().Get(context.Background(), got.ID())
			if err != nil || rec.Dir != f.dir {
				t.Errorf("the fork is not in the store in %s: %+v, %v", f.dir, rec, err)
			}
		})
	}
}

// A session is resumed in the directory it worked in, wherever it is
// resumed from; ACP's session/load, whose client names the directory,
// refuses a session of another one.
func TestResumingFromAnotherDirectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		load bool
	}{
		{"resume goes on in its own directory", false},
		{"ACP session load refuses it", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fake.New(), "")
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
			id := s.ID()
			s.Close()
			elsewhere := t.TempDir()

			got, err := f.h.OpenSession(t.Context(), host.Request{Dir: elsewhere, Resume: id, Load: tc.load}, host.FrontEnd{Mode: host.ModeAuto})
			if tc.load {
				if err == nil {
					got.Close()
					t.Fatalf("session/load in %s opened session %s of %s", elsewhere, id, f.dir)
				}
				if !strings.Contains(err.Error(), f.dir) || !strings.Contains(err.Error(), elsewhere) {
					t.Errorf("error %q, want both directories named", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			if got.ID() != id || got.Dir() != f.dir {
				t.Errorf("opened %s in %s, want %s in %s", got.ID(), got.Dir(), id, f.dir)
			}
		})
	}
}

// Naming a session that does not exist, or continuing where there is
// none, is the person's mistake: a UsageError (exit code 2).
func TestNoSuchSessionIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  host.Request
	}{
		{"unknown id", host.Request{Resume: "0123456789ab"}},
		{"unknown id, ACP session load", host.Request{Resume: "0123456789ab", Load: true}},
		{"nothing to continue", host.Request{Continue: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fake.New(), "")
			tc.req.Dir = f.dir
			s, err := f.h.OpenSession(t.Context(), tc.req, host.FrontEnd{Mode: host.ModeAuto})
			if err == nil {
				s.Close()
				t.Fatalf("opened session %s", s.ID())
			}
			var usage host.UsageError
			if !errors.As(err, &usage) {
				t.Errorf("error %v (%T), want a UsageError", err, err)
			}
			list, lerr := f.storeSessions(t)
			if lerr != nil || len(list) != 0 {
				t.Errorf("sessions in the store after the failure: %v, %v", list, lerr)
			}
		})
	}
}

// storeSessions are the ids of the sessions in the fixture's store.
func (f *fixture) storeSessions(t *testing.T) ([]string, error) {
	st, err := f.h.Store(t.Context())
	if err != nil {
		return nil, err
	}
	list, err := st.List(t.Context(), sessions.ListOptions{Subagents: true})
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids, err
}
