//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guard on its own, as where no mount namespace binds the .git file
// and the git directory's files read-only: what a command leaves (written
// here by the test, unconfined, between the guard's two halves) is undone.
func TestGuardAloneRepairsEveryLayout(t *testing.T) {
	needGit(t)
	cases := []struct {
		name   string
		change func(t *testing.T, dir, evil string)
		check  func(t *testing.T, dir string, before []byte)
	}{
		{"rewritten .git file", func(t *testing.T, dir, evil string) {
			if fi, _ := os.Lstat(filepath.Join(dir, ".git")); fi.IsDir() {
				t.Skip("the layout's .git is a directory")
			}
			write(t, filepath.Join(dir, ".git"), "gitdir: "+evil+"\n")
		}, func(t *testing.T, dir string, before []byte) {
			if before != nil {
				unchanged(t, filepath.Join(dir, ".git"), string(before))
			}
		}},
		{".git file became a directory", func(t *testing.T, dir, evil string) {
			if fi, _ := os.Lstat(filepath.Join(dir, ".git")); fi.IsDir() {
				t.Skip("the layout's .git is a directory")
			}
			os.Remove(filepath.Join(dir, ".git"))
			gitMust(t, "init", "-q", dir)
		}, func(t *testing.T, dir string, before []byte) {
			unchanged(t, filepath.Join(dir, ".git"), string(before))
		}},
		{"nested .git file", func(t *testing.T, dir, evil string) {
			os.Mkdir(filepath.Join(dir, "n"), 0o755)
			write(t, filepath.Join(dir, "n", ".git"), "gitdir: "+evil+"\n")
		}, func(t *testing.T, dir string, _ []byte) {
			if b, err := os.ReadFile(filepath.Join(evilOf(dir), "config")); err == nil && strings.Contains(string(b), "fsmonitor") {
				t.Errorf("the nested .git file's repository keeps its fsmonitor:\n%s", b)
			}
		}},
	}
	for _, layout := range layouts {
		for _, c := range cases {
			t.Run(layout.name+"/"+c.name, func(t *testing.T) {
				base := t.TempDir()
				p := Policy{Mode: WorkspaceWrite, Dir: filepath.Join(base, "work"), TempDirs: []string{filepath.Join(base, "tmp")}}
				for _, d := range []string{p.Dir, p.TempDirs[0], filepath.Join(p.Dir, ".agent-config")} {
					os.MkdirAll(d, 0o755)
				}
				layout.make(t, &p)
				evil := filepath.Join(p.Dir, ".evil")
				gitMust(t, "init", "-q", evil)
				gitMust(t, "-C", evil, "config", "core.fsmonitor", "touch /nonexistent/ran")
				sb, err := New(Policy{Mode: p.Mode, Dir: p.Dir, TempDirs: p.TempDirs})
				if err != nil {
					t.Fatal(err)
				}
				defer sb.Close()
				before, _ := os.ReadFile(filepath.Join(p.Dir, ".git"))
				if fi, _ := os.Lstat(filepath.Join(p.Dir, ".git")); fi.IsDir() {
					before = nil
				}
				state := sb.lookGit()
				c.change(t, p.Dir, filepath.Join(evil, ".git"))
				t.Logf("guard: %s", sb.repairGit(state))
				c.check(t, p.Dir, before)
			})
		}
	}
}

func evilOf(dir string) string { return filepath.Join(dir, ".evil", ".git") }
