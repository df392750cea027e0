//go:build linux

package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// The config file's status_line in the interface: the command reads
// Claude Code's JSON and its line shows under the status bar, and after a
// turn it runs again with the turn's tokens. A command that hangs is
// killed at its timeout: the built-in status line stays, with one note.
func TestTheStatusLineCommandInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "status.json")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte(`status_line = { command = "cat > '`+state+`'; echo \"MY-LINE $(wc -c < '`+state+`') bytes\"" }`+"\n"), 0o600)
	srv := scripted.New(t, scripted.Text("An answer.").WithUsage(1200, 30))
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", cfg})
	s.WaitFor("MY-LINE")
	s.Send("hi")
	s.WaitFor("An answer.")
	s.WaitUntil("the status line run after the turn", func(string) bool {
		var in struct {
			Model struct {
				ID string `json:"id"`
			} `json:"model"`
			Window struct {
				In int `json:"total_input_tokens"`
			} `json:"context_window"`
		}
		data, _ := os.ReadFile(state)
		return json.Unmarshal(data, &in) == nil && in.Model.ID == "scripted-model" && in.Window.In == 1200
	})
	s.Quit()

	hang := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(hang, []byte(`status_line = { command = "sleep 60", timeout = "300ms" }`+"\n"), 0o600)
	s = e2e.StartTmux(t, t.TempDir(), nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", hang})
	screen := s.WaitFor("status line command failed")
	if !strings.Contains(screen, "scripted-model") {
		t.Errorf("the built-in status line is gone:\n%s", screen)
	}
	s.Quit()
}
