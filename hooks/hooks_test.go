package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMatchTakesClaudeCodesNames(t *testing.T) {
	cases := []struct {
		matcher, value string
		want           bool
	}{
		{"", "bash", true},
		{"*", "edit_file", true},
		{"Bash", "bash", true},
		{"bash", "bash", true},
		{"Edit|Write", "edit_file", true},
		{"Edit|Write", "write_file", true},
		{"Edit|Write", "read_file", false},
		{"Edit", "MultiEdit", false},
		{"Read", "read_file", true},
		{"Glob", "list_files", true},
		{"Grep", "grep", true},
		{"Task", "task", true},
		{"WebFetch", "web_fetch", true},
		{"Web.*", "web_fetch", true},
		{"WebSearch", "web_fetch", false},
		{"MultiEdit", "edit_file", true},
		{"LS", "list_files", true},
		{"TodoWrite", "todo_write", true},
		{"ExitPlanMode", "exit_plan_mode", true},
		{"NotebookEdit", "edit_file", false},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__create_issue", false},
		{"mcp__memory__save", "mcp__memory__save", true},
		{"Notebook.*", "bash", false},
		{"([", "bash", false},
		{"startup", "startup", true},
		{"startup|resume", "compact", false},
	}
	for _, c := range cases {
		if got := Match(c.matcher, c.value); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.matcher, c.value, got, c.want)
		}
	}
}

func TestLoadClaudeReadsTheSettingsShape(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"permissions": {"allow": []}, "hooks": {
	  "PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "check.sh", "timeout": 5}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "done.sh"}, {"type": "prompt", "prompt": "Is the task done? $ARGUMENTS", "timeout": 20}, {"type": "http", "url": "http://127.0.0.1:9/hook"}]}],
	  "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
	  "ConfigChange": [{"hooks": [{"type": "command", "command": "y"}]}]
	}}`), 0o644)
	hs, warnings, err := LoadClaude(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 4 {
		t.Fatalf("hooks = %+v, want 4", hs)
	}
	perm, pre, stop, judged := hs[0], hs[1], hs[2], hs[3]
	if perm.Event != PermissionRequest || perm.Matcher != "Bash" || perm.Command != "x" {
		t.Errorf("PermissionRequest hook = %+v", perm)
	}
	if pre.Event != PreToolUse || pre.Matcher != "Bash|Edit" || pre.Command != "check.sh" || pre.Timeout != 5*time.Second || !pre.Project || pre.Source != path {
		t.Errorf("PreToolUse hook = %+v", pre)
	}
	if stop.Event != Stop || stop.Command != "done.sh" {
		t.Errorf("Stop hook = %+v", stop)
	}
	if judged.Event != Stop || judged.Type != TypePrompt || judged.Prompt != "Is the task done? $ARGUMENTS" || judged.Timeout != 20*time.Second {
		t.Errorf("prompt hook = %+v", judged)
	}
	if w := strings.Join(warnings, "\n"); len(warnings) != 2 || !strings.Contains(w, "ConfigChange") || !strings.Contains(w, `"http"`) {
		t.Errorf("warnings = %q, want the unknown event and the http hook named", warnings)
	}
	if hs, _, err := LoadClaude(filepath.Join(dir, "missing.json"), true); err != nil || hs != nil {
		t.Errorf("a missing file: %v, %v", hs, err)
	}
	os.WriteFile(path, []byte(`{"hooks": [`), 0o644)
	if _, _, err := LoadClaude(path, true); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad JSON: err = %v, want one naming the file", err)
	}
}

func TestFromTOMLRejectsUnknownEvents(t *testing.T) {
	hs, err := FromTOML(map[string][]TOML{"PostToolUse": {{Matcher: "Edit", Command: "gofmt -w", Timeout: 2}}}, "config.toml", false)
	if err != nil || len(hs) != 1 || hs[0].Timeout != 2*time.Second || hs[0].Project {
		t.Fatalf("FromTOML = %+v, %v", hs, err)
	}
	if _, err := FromTOML(map[string][]TOML{"AfterEdit": {{Command: "x"}}}, "c", false); err == nil {
		t.Error("an unknown event was accepted")
	}
	if _, err := FromTOML(map[string][]TOML{"Stop": {{}}}, "c", false); err == nil {
		t.Error("an entry without command was accepted")
	}
}

func run(t *testing.T, event, value string, in Input, hs ...Hook) []Result {
	t.Helper()
	for i := range hs {
		hs[i].Event, hs[i].Source = event, "test"
	}
	r := &Runner{Hooks: hs, Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}
	in.HookEventName = event
	return r.Run(context.Background(), value, in)
}

func TestRunGivesTheInputAndReadsTheAnswer(t *testing.T) {
	res := run(t, PreToolUse, "bash", Input{SessionID: "s1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm -rf x"}`)},
		Hook{Matcher: "Bash", Command: `cat; echo "$CLAUDE_PROJECT_DIR" >&2`})
	if len(res) != 1 || res[0].Exit != 0 {
		t.Fatalf("results = %+v", res)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(res[0].Stdout), &got); err != nil {
		t.Fatalf("stdin was not the JSON input: %q", res[0].Stdout)
	}
	if got["session_id"] != "s1" || got["hook_event_name"] != PreToolUse || got["tool_name"] != "Bash" || got["cwd"] == "" {
		t.Errorf("input = %v", got)
	}
	if strings.TrimSpace(res[0].Stderr) != got["cwd"] {
		t.Errorf("CLAUDE_PROJECT_DIR = %q, want the cwd %q", res[0].Stderr, got["cwd"])
	}
	if res := run(t, PreToolUse, "read_file", Input{}, Hook{Matcher: "Bash", Command: "exit 2"}); len(res) != 0 {
		t.Errorf("a hook whose matcher does not select the tool ran: %+v", res)
	}
}

func TestExitTwoDeniesWithStderr(t *testing.T) {
	res := run(t, PreToolUse, "bash", Input{}, Hook{Command: `echo "no rm here" >&2; exit 2`}, Hook{Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`})
	d := DecideTool(res)
	if d.Verdict != ToolDeny || d.Reason != "no rm here" || d.Why != "hook: test" {
		t.Errorf("decision = %+v, want a denial with the hook's stderr", d)
	}
}

func TestJSONDecisions(t *testing.T) {
	cases := []struct {
		out  string
		want ToolVerdict
	}{
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, ToolAsk},
		{`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`, ToolDeny},
		{`{"decision":"approve"}`, ToolAllow},
		{`{"continue":false,"stopReason":"halt"}`, ToolDeny},
		{`plain text`, ToolPass},
	}
	for _, c := range cases {
		res := run(t, PreToolUse, "bash", Input{}, Hook{Command: "echo '" + c.out + "'"})
		if d := DecideTool(res); d.Verdict != c.want {
			t.Errorf("%s: verdict %v, want %v", c.out, d.Verdict, c.want)
		}
	}
	res := run(t, PreToolUse, "bash", Input{}, Hook{Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}'`})
	if d := DecideTool(res); d.Verdict != ToolAllow || string(d.UpdatedInput) != `{"command":"ls"}` {
		t.Errorf("updatedInput: %+v", d)
	}
}

func TestAHookPastItsTimeoutIsStoppedAndReported(t *testing.T) {
	start := time.Now()
	res := run(t, PreToolUse, "bash", Input{}, Hook{Command: "sleep 30 & sleep 30", Timeout: 300 * time.Millisecond})
	if time.Since(start) > 20*time.Second {
		t.Fatalf("Run waited for the hook's sleep")
	}
	d := DecideTool(res)
	if d.Verdict != ToolPass || len(d.Failed) != 1 || !strings.Contains(d.Failed[0], "timed out") {
		t.Errorf("decision = %+v, want the hook named as timed out", d)
	}
	res = run(t, Stop, "", Input{}, Hook{Command: "exit 1"}, Hook{Command: "sleep 30", Timeout: 100 * time.Millisecond})
	o := Summarize(Stop, res)
	if o.Blocked || len(o.Notes) != 2 {
		t.Errorf("outcome = %+v, want two notes and no block", o)
	}
}

func TestSummarizeByEvent(t *testing.T) {
	res := run(t, UserPromptSubmit, "", Input{Prompt: "hi"}, Hook{Command: "echo today is Tuesday"},
		Hook{Command: `echo '{"hookSpecificOutput":{"additionalContext":"branch main"}}'`})
	o := Summarize(UserPromptSubmit, res)
	if o.Blocked || strings.Join(o.Context, "|") != "today is Tuesday|branch main" {
		t.Errorf("outcome = %+v", o)
	}
	res = run(t, Stop, "", Input{}, Hook{Command: `echo '{"decision":"block","reason":"run the tests"}'`})
	if o := Summarize(Stop, res); !o.Blocked || o.Reason != "run the tests" {
		t.Errorf("Stop outcome = %+v", o)
	}
	res = run(t, PostToolUse, "edit_file", Input{}, Hook{Matcher: "Edit", Command: "echo formatted"})
	if o := Summarize(PostToolUse, res); len(o.Context) != 0 || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "formatted") {
		t.Errorf("PostToolUse stdout should be a note: %+v", o)
	}
}

func TestCommandsDefinedTwiceRunOnce(t *testing.T) {
	res := run(t, Stop, "", Input{}, Hook{Command: "true"}, Hook{Command: "true"})
	if len(res) != 1 {
		t.Errorf("results = %d, want 1", len(res))
	}
}
