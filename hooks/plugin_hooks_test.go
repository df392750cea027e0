package hooks

import (
	"strings"
	"testing"
)

// A plugin's hook gets the variables the plugin gives it (its
// CLAUDE_PLUGIN_ROOT) beside the runner's.
func TestAHookGetsItsOwnEnvironment(t *testing.T) {
	res := run(t, UserPromptSubmit, "", Input{}, Hook{Command: `printf '%s|%s' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PROJECT_DIR"`, Plugin: "p@m", Env: []string{"CLAUDE_PLUGIN_ROOT=/plugins/p"}})
	if len(res) != 1 || !strings.HasPrefix(res[0].Stdout, "/plugins/p|") || strings.HasSuffix(res[0].Stdout, "|") {
		t.Errorf("results = %+v, want the plugin's root and the project's directory", res)
	}
}

// A plugin's PreToolUse hook that cannot start is a note naming the
// plugin, and the call is not held back (Claude Code's semantics of a
// failed hook); the person's own such hook still never passes silently.
func TestAPluginHookThatFailsIsANote(t *testing.T) {
	res := run(t, PreToolUse, "bash", Input{}, Hook{Command: "./no-such-script.sh", Plugin: "broken@m"})
	d := DecideTool(res)
	if len(d.Failed) != 0 || d.Verdict != ToolPass || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "plugin broken@m") {
		t.Errorf("decision = %+v, want a note naming the plugin and no verdict", d)
	}
	// Exit 2 still blocks: that is the hook's answer, not its failure.
	res = run(t, PreToolUse, "bash", Input{}, Hook{Command: "echo no >&2; exit 2", Plugin: "strict@m"})
	if d := DecideTool(res); d.Verdict != ToolDeny || d.Reason != "no" {
		t.Errorf("decision = %+v, want exit 2 to deny", d)
	}
}

// Hooks whose if, async or asyncRewake field changes when or how they run
// are skipped and named; other fields agent does not read are named once
// per file; the rest load.
func TestParseClaudeNamesWhatItCannotHonour(t *testing.T) {
	hs, warnings, err := ParseClaude([]byte(`{"description": "d", "hooks": {
  "PostToolUse": [
    {"matcher": "Bash", "hooks": [
      {"type": "command", "command": "review.sh", "if": "Bash(git commit:*)", "asyncRewake": true, "rewakeMessage": "m"},
      {"type": "command", "command": "log.sh", "async": true},
      {"type": "command", "command": "sync.sh", "async": false, "statusMessage": "checking", "once": true}
    ]}
  ]}}`), "hooks.json", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Command != "sync.sh" || hs[0].Matcher != "Bash" {
		t.Errorf("hooks = %+v, want sync.sh alone", hs)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{"`review.sh` skipped: asyncRewake", "`log.sh` skipped: async", "hooks' fields not read by agent: once, statusMessage"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "rewakeMessage") {
		t.Errorf("a skipped hook's fields are named again:\n%s", all)
	}
	if _, _, err := ParseClaude([]byte(`{"hooks": [`), "bad.json", false); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("invalid JSON: %v", err)
	}
}

// Two plugins' hooks with the same command (${CLAUDE_PLUGIN_ROOT} left
// to the shell) run once each, in their own environment.
func TestTheSameCommandOfTwoPluginsRunsForEach(t *testing.T) {
	res := run(t, SessionStart, "startup", Input{},
		Hook{Command: `printf '%s' "$CLAUDE_PLUGIN_ROOT"`, Plugin: "a@m", Env: []string{"CLAUDE_PLUGIN_ROOT=/a"}},
		Hook{Command: `printf '%s' "$CLAUDE_PLUGIN_ROOT"`, Plugin: "b@m", Env: []string{"CLAUDE_PLUGIN_ROOT=/b"}},
		Hook{Command: `printf '%s' "$CLAUDE_PLUGIN_ROOT"`, Plugin: "b@m", Env: []string{"CLAUDE_PLUGIN_ROOT=/b"}})
	if len(res) != 2 || res[0].Stdout != "/a" || res[1].Stdout != "/b" {
		t.Errorf("results = %+v, want /a and /b once each", res)
	}
}
