package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/tools"
)

// Why a call was refused shows in its block: who refused it in the header,
// and what the model was told (a hook's reason, the person's own
// instructions) wrapped below it, never cut at the pane's edge.
func TestADeniedCallSaysWhyInItsBlock(t *testing.T) {
	for _, tt := range []struct {
		why, content, tail string
	}{
		{"denied by the person, with instructions", "the user denied this bash call and said what to do instead: run make test, which sets the build tags this package needs, and never go test alone", "denied by the person, with instructions"},
		{"hook: .claude/settings.json", "Blocked by policy: pushing to main is not allowed in this repository; open a pull request", "denied by a hook"},
	} {
		b := newToolBlock(newStyles(true), "1", "bash", tools.Summary{Title: "git push origin main"})
		b.finish(tt.content, true, 0, map[string]any{tools.MetaDenied: true, tools.MetaDecision: tt.why})
		screen := ansi.Strip(b.Render(60))
		if !strings.Contains(strings.Split(screen, "\n")[0], tt.tail) {
			t.Errorf("the header does not say %q:\n%s", tt.tail, screen)
		}
		flat := strings.Join(strings.Fields(screen), " ")
		if !strings.Contains(flat, strings.Join(strings.Fields(tt.content), " ")) {
			t.Errorf("the reason is not shown whole:\n%s", screen)
		}
		for _, l := range strings.Split(screen, "\n") {
			if ansi.StringWidth(l) > 60 || strings.HasSuffix(l, "…") {
				t.Errorf("a line is cut: %q", l)
			}
		}
	}
}
