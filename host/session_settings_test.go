package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
)

// /model (the interface), session/set_model (ACP) and the SDK's
// set_model switch the model of the next request; "default" goes back to
// the configured one.
func TestSetModelSwitchesTheNextRequest(t *testing.T) {
	model := fake.New(fake.Text("1"), fake.Text("2"), fake.Text("3"))
	f := newFixture(t, model, "")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	for i, step := range []struct{ set, want string }{
		{"", "m"},
		{"bigger-model", "bigger-model"},
		{"default", "m"},
	} {
		if step.set != "" {
			if err := s.SetModel(step.set); err != nil {
				t.Fatalf("SetModel(%q): %v", step.set, err)
			}
		}
		runTurn(t, s, "hello")
		if got := model.Requests()[i].Model; got != step.want || s.Model() != step.want {
			t.Errorf("after SetModel(%q) the request asked %q (Model() %q), want %q", step.set, got, s.Model(), step.want)
		}
	}
}

// Shift+Tab (the interface), session/set_mode (ACP) and the SDK's
// set_permission_mode switch the mode the policy decides the next call
// in, in the same session.
func TestSetModeSwitchesThePolicy(t *testing.T) {
	steps := []struct {
		mode  string
		call  fake.Call
		file  string
		asked bool // whether the front-end was asked (it says no)
		ran   bool
		says  string
	}{
		{host.ModeAsk, call("w1", "write_file", `{"path":"a.txt","content":"a"}`), "a.txt", true, false, "No."},
		{host.ModeAuto, call("w2", "write_file", `{"path":"b.txt","content":"b"}`), "b.txt", false, true, ""},
		{host.ModePlan, call("w3", "write_file", `{"path":"c.txt","content":"c"}`), "c.txt", false, false, "plan mode"},
		{host.ModeYolo, call("b4", "bash", `{"command":"touch d.txt"}`), "d.txt", false, true, ""},
	}
	var script []fake.Reply
	for _, st := range steps {
		script = append(script, fake.ToolCalls(st.call), fake.Text("ok"))
	}
	model := fake.New(script...)
	f := newFixture(t, model, "")
	a := &asker{answer: loop.Decision{Reason: "No.", Why: "person: denied"}}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk, Asker: a})
	for i, st := range steps {
		if err := s.SetMode(st.mode); err != nil || s.Mode() != st.mode {
			t.Fatalf("SetMode(%q): %v, mode %q", st.mode, err, s.Mode())
		}
		before := len(a.questions())
		r := runTurn(t, s, "go")
		res := r.result(t, st.call.ID)
		if asked := len(a.questions()) > before; asked != st.asked {
			t.Errorf("in %s the front-end was asked: %v, want %v", st.mode, asked, st.asked)
		}
		if ran := exists(f.path(st.file)); ran != st.ran || res.IsError == st.ran || !strings.Contains(res.Content, st.says) {
			t.Errorf("in %s the call ran: %v with result %q, want ran %v saying %q", st.mode, ran, res.Content, st.ran, st.says)
		}
		if read := toolResults(model.Requests()[2*i+1])[st.call.ID]; read.Content != res.Content {
			t.Errorf("the model read %q, the front-end was shown %q", read.Content, res.Content)
		}
	}
	if err := s.SetMode("careless"); err == nil || s.Mode() != host.ModeYolo {
		t.Errorf("SetMode(careless): %v, mode %q: want an error and the mode unchanged", err, s.Mode())
	}
}

// The SDK's systemPrompt option replaces a new session's system prompt
// (appends follow it); a continued session, or one that has begun, keeps
// the prompt its history was written under.
func TestSetSystemPrompt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		continued bool // open the session with -c, after a first one
		turnFirst bool // run a turn before setting it
		replaced  bool
	}{
		{name: "a new session takes it", replaced: true},
		{name: "a continued session keeps its own", continued: true},
		{name: "a session with messages keeps its own", turnFirst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.Text("1"), fake.Text("2"))
			f := newFixture(t, model, "")
			if tc.continued {
				first := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
				runTurn(t, first, "hello")
				first.Close()
			}
			s := f.open(t, host.Request{Continue: tc.continued}, host.FrontEnd{Mode: host.ModeAuto})
			if tc.turnFirst {
				runTurn(t, s, "hello")
			}
			stored := s.Conversation().System()
			err := s.SetSystemPrompt(context.Background(), "You are a pirate.", "Answer in one word.")
			if (err == nil) != tc.replaced {
				t.Fatalf("SetSystemPrompt: %v, want replaced %v", err, tc.replaced)
			}
			runTurn(t, s, "hello")
			reqs := model.Requests()
			system := reqs[len(reqs)-1].System
			if !tc.replaced {
				if system != stored {
					t.Errorf("the request's system prompt changed to:\n%s", system)
				}
				return
			}
			if !strings.HasPrefix(system, "You are a pirate.") || !strings.HasSuffix(system, "Answer in one word.") || strings.Contains(system, "You are agent") {
				t.Errorf("the request's system prompt:\n%s\nwant the pirate's, with the append at its end", system)
			}
			if rec, err := s.Store().Get(context.Background(), s.ID()); err != nil || rec.SystemPrompt != system {
				t.Errorf("the stored system prompt %q (%v), want the one sent", rec.SystemPrompt, err)
			}
		})
	}
}
