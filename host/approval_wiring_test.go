package host_test

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
)

// Every call goes through one approval, whatever the front-end: the
// policy first (deny rules, in every mode), then the front-end's Asker; a
// denial is a tool result the model reads, and the call does not run.
func TestApprovalThroughTheFrontEnd(t *testing.T) {
	touch := call("c1", "bash", `{"command":"touch made"}`)
	for _, tc := range []struct {
		name   string
		config string
		fe     host.FrontEnd
		call   fake.Call
		answer loop.Decision // the Asker's, when the front-end has one
		asker  bool
		// asked is the number of questions the Asker must get; denied
		// whether the model reads a refusal that contains says.
		asked  int
		denied bool
		says   []string
		// made is whether the file "made" exists after the turn.
		made bool
	}{{
		name: "ask mode asks the front-end, whose denial the model reads",
		fe:   host.FrontEnd{Mode: host.ModeAsk}, call: touch, asker: true,
		answer: loop.Decision{Reason: "Not in this repository, please.", Why: "person: denied"},
		asked:  1, denied: true, says: []string{"Not in this repository, please."},
	}, {
		name: "ask mode asks the front-end, whose yes runs the command",
		fe:   host.FrontEnd{Mode: host.ModeAsk}, call: touch, asker: true,
		answer: loop.Decision{Allow: true, Why: "person: once"},
		asked:  1, made: true,
	}, {
		name: "headless, nobody to ask: refused with how to allow it",
		fe:   host.FrontEnd{Mode: host.ModeAsk}, call: touch,
		denied: true, says: []string{"nobody can be asked", "--allow-bash", "allow rule"},
	}, {
		name:   "a deny rule of the config holds in yolo",
		config: `[permissions]` + "\n" + `deny = ["touch"]`,
		fe:     host.FrontEnd{Mode: host.ModeYolo}, call: touch, asker: true,
		denied: true, says: []string{"a rule in the user's config"},
	}, {
		name: "the SDK's tools option denies a built-in tool it does not name",
		fe:   host.FrontEnd{Mode: host.ModeAuto, Rules: host.Rules{Only: []string{"read_file"}}},
		call: call("c1", "list_files", `{}`), asker: true,
		denied: true, says: []string{"list_files was not run"},
	}, {
		name: "the SDK's tools option runs a tool it names",
		fe:   host.FrontEnd{Mode: host.ModeAuto, Rules: host.Rules{Only: []string{"read_file"}}},
		call: call("c1", "read_file", `{"path":"here.txt"}`), asker: true,
		says: []string{"here"},
	}, {
		name: "--disallowedTools denies the tool",
		fe:   host.FrontEnd{Mode: host.ModeYolo, Rules: host.Rules{DenyTools: []string{"read_file"}}},
		call: call("c1", "read_file", `{"path":"here.txt"}`), asker: true,
		denied: true, says: []string{"read_file was not run", `"read_file"`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.ToolCalls(tc.call), fake.Text("done"))
			f := newFixture(t, model, tc.config)
			write(t, f.path("here.txt"), "here\n")
			a := &asker{answer: tc.answer}
			if tc.asker {
				tc.fe.Asker = a
			}
			s := f.open(t, host.Request{}, tc.fe)
			r := runTurn(t, s, "go")
			if r.done.Reason != loop.StopAnswered {
				t.Fatalf("the turn ended %s (%v): a denial must be a result, not a failed turn", r.done.Reason, r.done.Err)
			}

			qs := a.questions()
			if len(qs) != tc.asked {
				t.Fatalf("the front-end was asked %d times, want %d", len(qs), tc.asked)
			}
			for _, q := range qs {
				if q.Def.Name != tc.call.Name || !q.Def.Effects.Has(tools.RunsCommands) || q.Req.Call.Arguments != tc.call.Arguments {
					t.Errorf("question about %s (effects %v) with %s, want the call and its tool's definition", q.Def.Name, q.Def.Effects, q.Req.Call.Arguments)
				}
			}
			read := toolResults(model.Requests()[1])[tc.call.ID]
			if read.IsError != tc.denied {
				t.Errorf("the model read %q (error %v), want denied %v", read.Content, read.IsError, tc.denied)
			}
			for _, want := range tc.says {
				if !strings.Contains(read.Content, want) {
					t.Errorf("the model read %q, want it to say %q", read.Content, want)
				}
			}
			if got := exists(f.path("made")); got != tc.made {
				t.Errorf("the command ran: %v, want %v", got, tc.made)
			}
		})
	}
}
