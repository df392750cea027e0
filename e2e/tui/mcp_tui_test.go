//go:build linux

package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// TestMCPTrustQuestionInTmux: in the interface, each server of a project's
// .mcp.json is asked about once per repository; the answers are
// remembered, so the next start asks nothing; a refused server is not
// started. A configured server that fails is reported once, as a note,
// and the session goes on. Quitting with Ctrl+C stops a server's whole
// process group.
func TestMCPTrustQuestionInTmux(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPBin(t)
	everything := filepath.Join(bin, "mcp-server-everything")
	dir, data := t.TempDir(), t.TempDir()
	fifo := filepath.Join(dir, "pid.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// keep leaves a sleeper in its process group and says its pid.
	mcpJSON := fmt.Sprintf(`{"mcpServers": {
		"keep": {"command": "sh", "args": ["-c", "sleep 300 & echo $! > pid.fifo; exec %s"]},
		"refuse": {"command": %q}}}`, everything, everything)
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := e2e.MCPConfig(t, "[mcp.servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n")
	srv := scripted.New(t)
	env := []string{"XDG_DATA_HOME=" + data}
	args := []string{"--base-url", srv.URL(), "--model", "scripted-model", "--config", cfg}

	s := e2e.StartTmux(t, dir, env, args)
	s.WaitFor("Ask about this repository")
	for range 2 {
		screen := s.WaitFor("(answer remembered)")
		if strings.Contains(screen, "? start project MCP server keep") {
			s.AllowOnce() // "Yes (remembered)"
			s.WaitFor("allowed")
		} else {
			s.WaitFor("↑/↓ choose")
			s.Keys("Down") // "No (remembered)"
			s.Keys("Enter")
			s.WaitFor("denied")
		}
	}
	sleeper := e2e.ChildFromFIFO(t, fifo) // keep started
	s.WaitFor("MCP server broken failed")
	screen := s.MCPUntil("keep: running")
	for _, want := range []string{"refuse: skipped: refused by the person", "broken: failed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, screen)
		}
	}
	s.Quit()
	// The conversation, printed to the terminal at quitting, holds the
	// note once, however many /mcp reports it took to see keep running.
	if all := s.History(); strings.Count(all, "MCP server broken failed") != 1 {
		t.Errorf("the failed server is reported %d times, want once:\n%s", strings.Count(all, "MCP server broken failed"), all)
	}
	if !sleeper.Ended() {
		t.Errorf("the server's process group outlived the interface (sleeper %d)", sleeper.Pid)
	}

	// The second start asks nothing: keep starts, refuse stays skipped.
	s = e2e.StartTmux(t, dir, env, args)
	s.WaitFor("Ask about this repository")
	sleeper = e2e.ChildFromFIFO(t, fifo)
	screen = s.MCPUntil("keep: running")
	if !strings.Contains(screen, "refuse: skipped: refused earlier") || strings.Contains(screen, "(answer remembered)") {
		t.Errorf("second start: asked again, or refuse not skipped:\n%s", screen)
	}
	s.Quit()
	if !sleeper.Ended() {
		t.Errorf("second start: the server's process group outlived the interface (sleeper %d)", sleeper.Pid)
	}
}
