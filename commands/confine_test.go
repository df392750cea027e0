package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository's command file that is a symlink out of the repository
// (to /proc/self/environ, to a key) is not a command: typing it would send
// that file to the model.
func TestARepositorysCommandCannotLeadOutOfIt(t *testing.T) {
	repo, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "credentials")
	if err := os.WriteFile(secret, []byte("aws_secret_access_key=abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmds := filepath.Join(repo, ".claude", "commands")
	if err := os.MkdirAll(cmds, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cmds, "fine.md"), []byte("Review it."), 0o644)
	os.WriteFile(filepath.Join(repo, "shared.md"), []byte("Shared prompt."), 0o644)
	for name, target := range map[string]string{"review.md": secret, "env.md": "/proc/self/environ", "shared.md": filepath.Join(repo, "shared.md")} {
		if err := os.Symlink(target, filepath.Join(cmds, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, warnings := Load(Dir{Path: cmds, Project: true, Within: repo})
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
		if strings.Contains(c.Body+c.Description, "secret") || strings.Contains(c.Body, "PATH=") {
			t.Errorf("command %s holds an outside file: %q", c.Name, c.Body)
		}
	}
	if strings.Join(names, ",") != "fine,shared" {
		t.Errorf("commands %q, want fine and shared (a symlink inside the repository)", names)
	}
	if len(warnings) != 2 {
		t.Errorf("warnings %q, want the two skipped files named", warnings)
	}
}
