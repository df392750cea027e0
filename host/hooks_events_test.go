package host_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// settingsWithHooks is a .claude/settings.json holding hooks: event ->
// the hook entries (Claude Code's {"type": ..., ...} objects) under
// matcher.
func settingsWithHooks(t *testing.T, event, matcher string, entries ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": entries}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func command(c string) map[string]any { return map[string]any{"type": "command", "command": c} }

// A PermissionRequest hook answers the question a person would get: its
// allow runs the call headless in ask mode (where nobody could say yes),
// its exit 2 denies it with its words; a call no question is asked about
// never reaches it.
func TestPermissionRequestHookAnswersForThePerson(t *testing.T) {
	allow := `cat > "$CLAUDE_PROJECT_DIR/perm.json"; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`
	for _, tc := range []struct {
		name, hook string
		made       bool
		says       string
	}{
		{"allow", allow, true, ""},
		{"deny", `echo 'not on Fridays' >&2; exit 2`, false, "not on Fridays"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := fake.New(fake.ToolCalls(call("c1", "bash", `{"command":"touch made"}`)), fake.Text("done"))
			f := newFixture(t, model, "")
			write(t, f.path(".claude/settings.json"), settingsWithHooks(t, "PermissionRequest", "Bash", command(tc.hook)))
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk, Trust: host.Trust{Hooks: true}})
			runTurn(t, s, "go")
			if exists(f.path("made")) != tc.made {
				t.Fatalf("the command ran: %v, want %v", exists(f.path("made")), tc.made)
			}
			got := toolResults(model.Requests()[1])["c1"]
			if tc.says != "" && (!got.IsError || !strings.Contains(got.Content, tc.says)) {
				t.Errorf("the model read %q", got.Content)
			}
			if tc.made {
				if in := hookInput(t, f.path("perm.json")); in["hook_event_name"] != "PermissionRequest" || in["tool_name"] != "Bash" {
					t.Errorf("the hook read %v", in)
				}
			}
		})
	}
}

// A failed call runs PostToolUseFailure's hooks, with the error, and not
// PostToolUse's; a call that worked runs PostToolUse's only.
func TestPostToolUseFailureRunsForFailedCalls(t *testing.T) {
	model := fake.New(fake.ToolCalls(call("c1", "read_file", `{"path":"missing.txt"}`), call("c2", "read_file", `{"path":"here.txt"}`)), fake.Text("done"))
	f := newFixture(t, model, "")
	settings := `{"hooks": {
	  "PostToolUseFailure": [{"matcher": "Read", "hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/failure-$(date +%N).json\"; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUseFailure\",\"additionalContext\":\"try ls first\"}}'"}]}],
	  "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/success.json\""}]}]
	}}`
	write(t, f.path(".claude/settings.json"), settings)
	write(t, f.path("here.txt"), "here\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{Hooks: true}})
	runTurn(t, s, "go")
	res := toolResults(model.Requests()[1])
	if !res["c1"].IsError || !strings.Contains(res["c1"].Content, "PostToolUseFailure hook context: try ls first") {
		t.Errorf("the failed call's result: %q", res["c1"].Content)
	}
	if strings.Contains(res["c2"].Content, "try ls first") {
		t.Errorf("the failure hook ran for a call that worked: %q", res["c2"].Content)
	}
	failures, _ := filepath.Glob(f.path("failure-*.json"))
	if len(failures) != 1 {
		t.Fatalf("PostToolUseFailure ran %d times, want once", len(failures))
	}
	in := hookInput(t, failures[0])
	if in["hook_event_name"] != "PostToolUseFailure" || in["tool_use_id"] != "c1" || !strings.Contains(in["error"].(string), "missing.txt") {
		t.Errorf("the failure hook read %v", in)
	}
	if in := hookInput(t, f.path("success.json")); in["tool_use_id"] != "c2" {
		t.Errorf("PostToolUse ran for %v, want c2 only", in["tool_use_id"])
	}
}

// A SubagentStart hook's context reaches the subagent; it hears the
// agent's type.
func TestSubagentStartHookGivesTheSubagentContext(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		switch {
		case strings.Contains(req.System, "<hook-context>"):
			return fake.Text("child done")
		case len(req.Messages) == 1:
			return fake.ToolCalls(call("t1", "task", `{"description":"look around","prompt":"list the files"}`))
		}
		return fake.Text("parent done")
	})
	f := newFixture(t, model, "")
	hook := `cat > "$CLAUDE_PROJECT_DIR/start.json"; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"The staging database is read-only."}}'`
	write(t, f.path(".claude/settings.json"), settingsWithHooks(t, "SubagentStart", "", command(hook)))
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{Hooks: true}})
	if r := runTurn(t, s, "go"); r.done.Reason != loop.StopAnswered {
		t.Fatalf("turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	found := false
	for _, req := range model.Requests() {
		found = found || strings.Contains(req.System, "The staging database is read-only.")
	}
	if !found {
		t.Error("no request of the subagent carried the hook's context")
	}
	if in := hookInput(t, f.path("start.json")); in["hook_event_name"] != "SubagentStart" || in["agent_type"] != "general-purpose" || in["agent_id"] != "t1" {
		t.Errorf("the hook read %v", in)
	}
}

// A prompt hook on Stop is judged by the session's model: "ok": false
// sends the model on with the reason; "ok": true lets the turn end.
func TestPromptHookOnStopIsJudgedByTheModel(t *testing.T) {
	var judged atomic.Int32
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		if strings.Contains(req.System, "You judge a condition") {
			n := judged.Add(1)
			if !strings.Contains(req.Messages[0].Text(), `"hook_event_name":"Stop"`) || !strings.Contains(req.Messages[0].Text(), "Were the tests run?") {
				return fake.Text("unexpected question")
			}
			if n == 1 {
				return fake.Text("```json\n{\"ok\": false, \"reason\": \"run go test first\"}\n```")
			}
			return fake.Text(`{"ok": true}`)
		}
		return fake.Text("finished")
	})
	f := newFixture(t, model, "")
	write(t, f.path(".claude/settings.json"), settingsWithHooks(t, "Stop", "", map[string]any{"type": "prompt", "prompt": "Were the tests run? $ARGUMENTS"}))
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto, Trust: host.Trust{Hooks: true}})
	if r := runTurn(t, s, "go"); r.done.Reason != loop.StopAnswered {
		t.Fatalf("turn ended %s: %v", r.done.Reason, r.done.Err)
	}
	if judged.Load() != 2 {
		t.Fatalf("judged %d times, want 2", judged.Load())
	}
	sent := false
	for _, req := range model.Requests() {
		sent = sent || (!strings.Contains(req.System, "You judge") && strings.Contains(lastUser(req), "run go test first"))
	}
	if !sent {
		t.Error("the model was not sent on with the prompt hook's reason")
	}
}
