package host_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// claudeSettingsJSON is a repository's .claude/settings.json in Claude
// Code's format.
const claudeSettingsJSON = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(echo:*)", "Edit"],
    "ask": ["Bash(touch:*)"],
    "deny": ["Bash(git push:*)", "Read(./.env)", "Edit(./locked/**)"]
  },
  "env": {"GREETING": "from-settings", "ANTHROPIC_API_KEY": "planted"},
  "includeCoAuthoredBy": true,
  "spinnerTipsEnabled": false
}`

// A repository's Claude Code settings: deny and ask rules hold at once,
// in every mode; its allow rules and env only once the repository is
// trusted; a provider key is never set from it; what agent does not
// honour is named.
func TestClaudeSettingsPermissionsAndEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted bool
		mode    string
		call    fake.Call
		asked   int
		denied  bool
		says    []string
	}{
		{name: "a deny rule of a command holds in yolo", mode: host.ModeYolo, call: call("c1", "bash", `{"command":"git push origin main"}`), denied: true, says: []string{"git push"}},
		{name: "a Read deny rule keeps the file from read_file", mode: host.ModeYolo, call: call("c1", "read_file", `{"path":".env"}`), denied: true},
		{name: "an Edit deny rule keeps the folder from write_file", mode: host.ModeAuto, call: call("c1", "write_file", `{"path":"locked/a.txt","content":"x"}`), denied: true, says: []string{"locked"}},
		{name: "an ask rule asks in auto mode", mode: host.ModeAuto, call: call("c1", "bash", `{"command":"touch made"}`), asked: 1, denied: true},
		{name: "an untrusted repository's allow rule does not allow", mode: host.ModeAsk, call: call("c1", "bash", `{"command":"echo $GREETING"}`), asked: 1, denied: true},
		{name: "a trusted repository's allow rule and env apply", trusted: true, mode: host.ModeAsk, call: call("c1", "bash", `{"command":"echo $GREETING-${ANTHROPIC_API_KEY:-unset}"}`), says: []string{"from-settings-unset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.ToolCalls(tc.call), fake.Text("done"))
			f := newFixture(t, model, "")
			write(t, f.path(".claude/settings.json"), claudeSettingsJSON)
			write(t, f.path(".env"), "SECRET=1\n")
			a := &asker{answer: loop.Decision{Reason: "no", Why: "person: denied"}}
			var warnings []string
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: tc.mode, Asker: a, Trust: host.Trust{Hooks: tc.trusted},
				Warn: func(w string) { warnings = append(warnings, w) }})
			if r := runTurn(t, s, "go"); r.done.Reason != loop.StopAnswered {
				t.Fatalf("turn ended %s: %v", r.done.Reason, r.done.Err)
			}
			if n := len(a.questions()); n != tc.asked {
				t.Errorf("asked %d times, want %d", n, tc.asked)
			}
			read := toolResults(model.Requests()[1])[tc.call.ID]
			if read.IsError != tc.denied {
				t.Errorf("the model read %q (error %v), want denied %v", read.Content, read.IsError, tc.denied)
			}
			for _, w := range tc.says {
				if !strings.Contains(read.Content, w) {
					t.Errorf("the model read %q, want %q", read.Content, w)
				}
			}
			if strings.Contains(read.Content, "SECRET=1") {
				t.Errorf("read .env: %q", read.Content)
			}
			if exists(f.path("made")) || exists(f.path("locked/a.txt")) {
				t.Error("a denied or unanswered call ran")
			}
			if !strings.Contains(model.Requests()[0].System, "Co-Authored-By") {
				t.Error("includeCoAuthoredBy: true did not reach the system prompt")
			}
			all := strings.Join(append(warnings, s.Warnings()...), "\n")
			for _, w := range []string{"spinnerTipsEnabled: not honoured", "env ANTHROPIC_API_KEY not applied"} {
				if tc.trusted && !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
			if !tc.trusted && !strings.Contains(all, "not applied until you trust the file") {
				t.Errorf("no warning that the allow rules wait for trust:\n%s", all)
			}
		})
	}
}

// A trusted repository's statusLine runs as Claude Code runs it: the
// session's state as JSON on standard input, the first line of its output
// the line; an untrusted repository's does not run.
func TestStatusLineCommandGetsTheSessionsState(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		f := newFixture(t, fake.New(), "")
		write(t, f.path(".claude/settings.json"), `{"statusLine": {"type": "command", "command": "cat > status.json; echo \"on $(basename \"$PWD\")\"; echo more", "padding": 1}}`)
		s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{Hooks: trusted}})
		ok, padding := s.StatusLine()
		if ok != trusted {
			t.Fatalf("trusted %v: a status line: %v", trusted, ok)
		}
		if !trusted {
			continue
		}
		line, err := s.RunStatusLine(t.Context(), host.StatusLineInput{SessionID: s.ID(), Model: "m", CostUSD: 0.25})
		if err != nil || line != "on work" || padding != 1 {
			t.Fatalf("line %q, padding %d, err %v", line, padding, err)
		}
		var in struct {
			SessionID string `json:"session_id"`
			Cwd       string `json:"cwd"`
			Model     struct {
				ID string `json:"id"`
			} `json:"model"`
			Cost struct {
				Total float64 `json:"total_cost_usd"`
			} `json:"cost"`
		}
		data, _ := os.ReadFile(f.path("status.json"))
		if err := json.Unmarshal(data, &in); err != nil || in.SessionID != s.ID() || in.Cwd != f.dir || in.Model.ID != "m" || in.Cost.Total != 0.25 {
			t.Errorf("the command read %s (%v)", data, err)
		}
	}
}

// A Read deny rule with a glob (Read(./keys/*.pem)) keeps the files it
// matches from the file tools whichever way the model asks: read_file by
// a symlink to one, grep over the working directory or the folder.
func TestClaudeSettingsReadDenyGlobHoldsForGrepAndSymlinks(t *testing.T) {
	calls := []fake.Call{
		call("c1", "read_file", `{"path":"keylink"}`),
		call("c2", "grep", `{"pattern":"KEYDATA"}`),
		call("c3", "grep", `{"pattern":"KEYDATA","path":"keys"}`),
		call("c4", "read_file", `{"path":"keys/a.pem"}`),
		call("c5", "grep", `{"pattern":"PUBLIC"}`),
	}
	model := fake.New(fake.ToolCalls(calls...), fake.Text("done"))
	f := newFixture(t, model, "")
	write(t, f.path(".claude/settings.json"), `{"permissions": {"deny": ["Read(./keys/*.pem)"]}}`)
	write(t, f.path("keys/a.pem"), "KEYDATA\n")
	write(t, f.path("keys/readme.txt"), "PUBLIC\n")
	if err := os.Symlink("keys/a.pem", f.path("keylink")); err != nil {
		t.Fatal(err)
	}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	runTurn(t, s, "go")
	res := toolResults(model.Requests()[1])
	for _, c := range calls[:4] {
		if got := res[c.ID].Content; strings.Contains(got, ":1:KEYDATA") || strings.Contains(got, "1\tKEYDATA") {
			t.Errorf("%s %s read the denied file: %q", c.Name, c.Arguments, res[c.ID].Content)
		}
	}
	if got := res["c5"].Content; !strings.Contains(got, "keys/readme.txt") {
		t.Errorf("grep of a file no rule denies: %q", got)
	}
}

// The env of a settings file passes the filter the agent's own
// environment passes: a variable whose name or value looks like a
// secret's (Claude Code's AWS_BEARER_TOKEN_BEDROCK, a GitHub token) does
// not reach the commands the model runs, and a warning names it; the
// others do.
func TestClaudeSettingsEnvKeepsSecretsFromCommands(t *testing.T) {
	model := fake.New(fake.ToolCalls(call("c1", "bash", `{"command":"echo \"[$GREETING][$AWS_BEARER_TOKEN_BEDROCK][$NOTES]\""}`)), fake.Text("done"))
	f := newFixture(t, model, "")
	write(t, f.path(".claude/settings.json"), `{"env": {"GREETING": "hi", "AWS_BEARER_TOKEN_BEDROCK": "bedrock-secret", "NOTES": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}}`)
	var warnings []string
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo, Trust: host.Trust{Hooks: true},
		Warn: func(w string) { warnings = append(warnings, w) }})
	runTurn(t, s, "go")
	got := toolResults(model.Requests()[1])["c1"].Content
	if !strings.Contains(got, "[hi][][]") {
		t.Errorf("the command printed %q, want [hi][][]", got)
	}
	all := strings.Join(append(warnings, s.Warnings()...), "\n")
	for _, name := range []string{"AWS_BEARER_TOKEN_BEDROCK", "NOTES"} {
		if !strings.Contains(all, "env "+name+" not applied") {
			t.Errorf("no warning names %s:\n%s", name, all)
		}
	}
}

// In the interface a repository's widening settings are asked about once:
// the answer is remembered, holds from the next session on, and a change
// to the file asks again.
func TestRepositorySettingsTrustIsAskedAndRemembered(t *testing.T) {
	model := fake.NewFunc(func(providers.Request) fake.Reply { return fake.Text("ok") })
	f := newFixture(t, model, "")
	write(t, f.path(".claude/settings.json"), `{"permissions": {"allow": ["Bash(make:*)"]}, "env": {"STAGE": "dev"}}`)
	var asked []string
	answer := true
	fe := host.FrontEnd{Mode: host.ModeAsk, Trust: host.Trust{Ask: func(_ context.Context, call providers.ToolCall, q string) (bool, bool) {
		asked = append(asked, q+" "+call.Arguments)
		return answer, true
	}}}
	first := f.open(t, host.Request{}, fe)
	if !strings.Contains(strings.Join(first.Warnings(), "\n"), "not applied until you trust the file") {
		t.Errorf("the first session applied the repository's settings: %q", first.Warnings())
	}
	first.AskSettingsTrust(t.Context(), fe)
	first.AskSettingsTrust(t.Context(), fe)
	if len(asked) != 1 || !strings.Contains(asked[0], "Bash(make:*)") || !strings.Contains(asked[0], "STAGE") || strings.Contains(asked[0], "dev") {
		t.Fatalf("asked %q, want once, showing the rules and the env's names (not values)", asked)
	}
	second := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk})
	if strings.Contains(strings.Join(second.Warnings(), "\n"), "not applied until you trust the file") {
		t.Errorf("the next session did not apply the trusted settings: %q", second.Warnings())
	}
	write(t, f.path(".claude/settings.json"), `{"permissions": {"allow": ["Bash"]}, "env": {"STAGE": "dev"}}`)
	third := f.open(t, host.Request{}, fe)
	if !strings.Contains(strings.Join(third.Warnings(), "\n"), "not applied until you trust the file") {
		t.Errorf("a changed file was applied: %q", third.Warnings())
	}
	third.AskSettingsTrust(t.Context(), fe)
	if len(asked) != 2 || !strings.Contains(asked[1], "CHANGED") {
		t.Errorf("a changed file was not asked again: %q", asked)
	}
}
