package tui

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestCodeKeepsItsTabsOnScreen streams a Go snippet indented with tabs and
// reads the screen as a person sees it: each tab level is 8 columns further
// right, counted from the start of the code line.
func TestCodeKeepsItsTabsOnScreen(t *testing.T) {
	t.Parallel()
	answer := scripted.Text("Here:\n\n```go\nfunc main() {\n\tif ok {\n\t\treturn\n\t}\n}\n```\n\nEnd of the snippet.\n")
	srv := scripted.New(t, answer)
	s := e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model"})
	s.WaitFor("Ask about this repository")
	s.Send("show me")
	s.WaitFor("End of the snippet.")
	screen := s.Tmux("capture-pane", "-p", "-t", s.Name)
	column := func(text string) int {
		for _, line := range strings.Split(screen, "\n") {
			if i := strings.Index(line, text); i >= 0 {
				return len([]rune(line[:i]))
			}
		}
		t.Fatalf("%q is not on the screen:\n%s", text, screen)
		return 0
	}
	code := column("func main()")
	for text, indent := range map[string]int{"if ok {": 8, "return": 16} {
		if got := column(text) - code; got != indent {
			t.Errorf("%q is %d columns right of the code line's start, want %d:\n%s", text, got, indent, screen)
		}
	}
	s.Quit()
	exec.Command("tmux", "-L", s.Socket, "kill-server").Run()
}
