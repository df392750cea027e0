package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBashAgrees runs the scripts in testdata/bash_scripts.txt (separated by
// lines "---") that Check allows under deny rule "rm" through real bash, with
// an rm that only records being called, and fails if rm ran or a file was
// written. The scripts are shaped to make the parser and bash disagree. It
// is skipped where bash is missing.
func TestBashAgrees(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "bash_scripts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{"ls", "echo", "cat", "printf", "true", "git"} {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	marker := filepath.Join(t.TempDir(), "rm-ran")
	fake := "#!" + bash + "\necho \"$*\" >> " + marker + "\n"
	if err := os.WriteFile(filepath.Join(bin, "rm"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	set, err := Compile([]string{"ls", "echo", "cat", "printf", "true", "git status"}, []string{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range strings.Split(string(data), "\n---\n") {
		if set.Check(script).Verdict != Allow {
			continue
		}
		work := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", script)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin, "HOME=" + work}
		_ = cmd.Run() // many scripts fail; only what they ran matters
		cancel()
		if out, err := os.ReadFile(marker); err == nil {
			t.Errorf("Check allows %q, but bash ran rm %s", script, out)
			os.Remove(marker)
		}
		if ents, _ := os.ReadDir(work); len(ents) > 0 {
			t.Errorf("Check allows %q, but bash wrote %s", script, ents[0].Name())
		}
	}
}
