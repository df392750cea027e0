//go:build linux

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// In the interface a repository's hooks run only after the person said
// yes to the question that shows them, and the answer is remembered (a
// headless run then runs them without --trust-project). A custom command
// is offered in / completion with its description and expanded when sent.
func TestProjectHooksAskedOnceInTheInterface(t *testing.T) {
	t.Parallel()
	hook := `touch "$CLAUDE_PROJECT_DIR/ran"; echo "The build uses make."`
	dir := e2e.ExtProject(t, map[string]string{
		".claude/settings.json":      e2e.ClaudeHooks("UserPromptSubmit", "", hook, 0),
		".claude/commands/review.md": "---\ndescription: Review one file closely\n---\nReview $ARGUMENTS.\n",
	})
	env := []string{"XDG_DATA_HOME=" + t.TempDir()}
	srv := scripted.New(t, scripted.Text("Understood."))
	s := e2e.StartTmux(t, dir, env, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")
	s.Text("/rev")
	s.WaitFor("Review one file closely")
	s.Send("iew main.go")
	screen := s.WaitFor("Run the hooks of .claude/settings.json?")
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "The build uses make.") {
		t.Errorf("the question does not show the hook's command:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the hook ran before the person answered")
	}
	s.AllowOnce()
	s.WaitFor("Understood.")
	s.Quit()
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Fatal("the trusted hook did not run")
	}
	got := e2e.LastUserText(srv.Requests()[0])
	if !strings.HasPrefix(got, "Review main.go.") || !strings.Contains(got, "The build uses make.") {
		t.Errorf("the model got %q", got)
	}

	os.Remove(filepath.Join(dir, "ran"))
	h := scripted.New(t, scripted.Text("ok"))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AgentArgs(h, "-p", "hi")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("the remembered answer did not hold headless: %s", res.Stderr)
	}
}
