package host

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// Which hooks the sandbox runs: a repository's and a plugin's command
// hooks, unless the person's config lets them out; never the user's own,
// never a prompt hook. Where nothing confines them, the person is told.
func TestWhichHooksRunInTheSandbox(t *testing.T) {
	user := hooks.Hook{Command: "fmt", Source: "~/.claude/settings.json"}
	project := hooks.Hook{Command: "sh scripts/format.sh", Project: true}
	plugin := hooks.Hook{Command: "${CLAUDE_PLUGIN_ROOT}/x.sh", Plugin: "p@m"}
	prompt := hooks.Hook{Type: hooks.TypePrompt, Prompt: "ok?", Project: true}
	for _, tc := range []struct {
		s                         sandbox.Settings
		user, project, plugin, pr bool
	}{
		{sandbox.Settings{}, false, true, true, false},
		{sandbox.Settings{UnconfinedProjectHooks: true}, false, false, true, false},
		{sandbox.Settings{UnconfinedPluginHooks: true}, false, true, false, false},
	} {
		got := []bool{confinedHook(user, tc.s), confinedHook(project, tc.s), confinedHook(plugin, tc.s), confinedHook(prompt, tc.s)}
		if want := []bool{tc.user, tc.project, tc.plugin, tc.pr}; !slices.Equal(got, want) {
			t.Errorf("settings %+v: confined (user, project, plugin, prompt) = %v, want %v", tc.s, got, want)
		}
	}
	enforced := sandbox.Status{Mode: sandbox.WorkspaceWrite, Enforced: true}
	if n := unconfinedHooksNote([]hooks.Hook{user, project}, sandbox.Settings{}, enforced); n != "" {
		t.Errorf("enforced: %q, want no note", n)
	}
	if n := unconfinedHooksNote([]hooks.Hook{user}, sandbox.Settings{}, sandbox.Status{Mode: sandbox.Off}); n != "" {
		t.Errorf("only the user's hooks: %q, want no note", n)
	}
	if n := unconfinedHooksNote([]hooks.Hook{project}, sandbox.Settings{}, sandbox.Status{Mode: sandbox.Off}); !strings.Contains(n, "unconfined") || !strings.Contains(n, "off") {
		t.Errorf("sandbox off: %q, want the hook named unconfined", n)
	}
	missing := sandbox.Status{Mode: sandbox.WorkspaceWrite, Reason: "Landlock is not available"}
	if n := unconfinedHooksNote([]hooks.Hook{plugin}, sandbox.Settings{}, missing); !strings.Contains(n, "Landlock is not available") {
		t.Errorf("not enforced: %q, want the reason", n)
	}
}
