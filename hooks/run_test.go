package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hook that leaves a child in the background holding its stdout (a
// notifier, a formatter started with &) still answers with its exit
// status: its stdout is read until it exits, not until the child does.
func TestAHookThatLeavesABackgroundChildStillAnswers(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	res := run(t, PreToolUse, "bash", Input{},
		Hook{Command: `sleep 30 & echo $! > ` + pid + `; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no rm here"}}'`, Timeout: 20 * time.Second})
	t.Cleanup(func() { killPidFile(pid) })
	if len(res) != 1 || res[0].Failure != "" || res[0].Exit != 0 {
		t.Fatalf("results = %+v, want exit status 0", res)
	}
	if d := DecideTool(res); d.Verdict != ToolDeny || d.Reason != "no rm here" {
		t.Errorf("decision = %+v, want the hook's deny", d)
	}
}

// A hook killed by a signal (it crashed, the OOM killer took it) gave no
// answer: PreToolUse must not pass the call as if it said nothing.
func TestAHookKilledByASignalGaveNoAnswer(t *testing.T) {
	res := run(t, PreToolUse, "bash", Input{}, Hook{Command: `kill -9 $$`})
	d := DecideTool(res)
	if len(d.Failed) != 1 || !strings.Contains(d.Failed[0], "signal") {
		t.Errorf("decision = %+v, want the hook named as killed by a signal", d)
	}
}

func killPidFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var pid int
	for _, c := range strings.TrimSpace(string(data)) {
		pid = pid*10 + int(c-'0')
	}
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		_ = p.Kill()
		_, _ = p.Wait()
	}
}

// A hook whose command cannot be found or run (a typo in the script's
// path) could not start: it must not let a PreToolUse call pass as a
// hook that said nothing would.
func TestAHookThatCannotStartGaveNoAnswer(t *testing.T) {
	for _, command := range []string{"./no-such-guard.sh", "/dev/null"} {
		res := run(t, PreToolUse, "bash", Input{}, Hook{Command: command})
		d := DecideTool(res)
		if len(d.Failed) != 1 || !strings.Contains(d.Failed[0], "could not start") {
			t.Errorf("%s: decision = %+v, want the hook named as one that could not start", command, d)
		}
	}
}

// A hook whose matcher is Claude Code's WebFetch runs for the agent's
// web_fetch (the runner's value is the agent's name), as Bash runs for
// bash; it runs once, and a matcher for another tool does not.
func TestAWebFetchMatcherRunsForWebFetch(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	res := run(t, PreToolUse, "web_fetch", Input{ToolName: "WebFetch", AgentToolName: "web_fetch"},
		Hook{Matcher: "WebFetch", Command: `cat >> ` + ran},
		Hook{Matcher: "Bash|Read", Command: `echo wrong >> ` + ran})
	if len(res) != 1 || res[0].Exit != 0 || res[0].Failure != "" {
		t.Fatalf("results = %+v, want the WebFetch hook's alone", res)
	}
	data, err := os.ReadFile(ran)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if got := string(data); !strings.Contains(got, `"tool_name":"WebFetch"`) || !strings.Contains(got, `"agent_tool_name":"web_fetch"`) || strings.Contains(got, "wrong") {
		t.Errorf("the hooks wrote %q, want the WebFetch hook's input alone", got)
	}
}
