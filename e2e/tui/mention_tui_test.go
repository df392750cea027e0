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

// In the interface, "@" completes a path as it is typed (Tab takes the
// best match) and the file is attached to the prompt the server receives.
func TestMentionCompletionAndAttachmentInTheInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "internal", "zoo"), 0o755)
	os.WriteFile(filepath.Join(dir, "internal", "zoo", "walrus.go"), []byte("package zoo\n\nconst Tusks = 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "walrus.log"), []byte("noise\n"), 0o644)
	srv := scripted.New(t, scripted.Text("Two tusks."))
	s := e2e.StartTmux(t, dir, nil, []string{"--base-url", srv.URL(), "--model", "scripted-model", "--max-retries", "0"})
	s.WaitFor("Ask about this repository")
	s.Text("how many tusks in @walr")
	screen := s.WaitFor("@internal/zoo/walrus.go")
	if strings.Contains(screen, "walrus.log") {
		t.Errorf("an ignored file is offered:\n%s", screen)
	}
	s.Keys("Tab")
	s.WaitFor("how many tusks in @internal/zoo/walrus.go")
	s.Keys("Enter")
	screen = s.WaitFor("Two tusks.")
	if !strings.Contains(screen, "Attached internal/zoo/walrus.go") {
		t.Errorf("no note of the attachment:\n%s", screen)
	}
	want := "how many tusks in @internal/zoo/walrus.go\n\n<attached path=\"internal/zoo/walrus.go\">\n" +
		"     1\tpackage zoo\n     2\t\n     3\tconst Tusks = 2\n</attached>"
	if got := e2e.LastUserText(srv.Requests()[0]); got != want {
		t.Errorf("the server received\n%q\nwant\n%q", got, want)
	}
	s.Quit()
}
