package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctor lists the variables of its environment that commands do not get,
// one a line with the reason, and env_passthrough (or env_keep) /
// env_remove change the list.
func TestDoctorListsTheRemovedVariables(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp-doctor")
	t.Setenv("AGENT_TEST_CORP_HOST", "h")
	t.Setenv("AGENT_TEST_UPSTREAM", "https://me:hunter2@git.example.com/r.git")
	cases := []struct {
		config      string
		want, never []string
	}{
		{"", []string{"GITHUB_TOKEN  ", "name looks like a secret's (*TOKEN*)", "AGENT_TEST_UPSTREAM", "value is a URL with a password"},
			[]string{"AGENT_TEST_CORP_HOST", "ghp-doctor", "hunter2"}},
		{"[sandbox]\nenv_keep = [\"GITHUB_*\"]\nenv_remove = [\"AGENT_TEST_CORP_*\"]\n",
			[]string{"AGENT_TEST_CORP_HOST", `env_remove "AGENT_TEST_CORP_*"`}, []string{"GITHUB_TOKEN", "ghp-doctor"}},
		{"[sandbox]\nenv_passthrough = [\"GITHUB_TOKEN\", \"AGENT_TEST_UPSTREAM\"]\n",
			[]string{"env_passthrough"}, []string{"GITHUB_TOKEN", "AGENT_TEST_UPSTREAM"}},
	}
	for _, c := range cases {
		out, _ := doctor(t, writeConfig(t, c.config), nil, "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
		line, in := "", false
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(l, "env removed"):
				line, in = l, true
			case in && strings.HasPrefix(l, "  "):
				line += "\n" + l
			default:
				in = false
			}
		}
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("config %q: the env line lacks %s:\n%s", c.config, w, out)
			}
		}
		for _, n := range c.never {
			if strings.Contains(line, n) {
				t.Errorf("config %q: the env line has %s:\n%s", c.config, n, out)
			}
		}
	}
}

func TestBadEnvPatternIsAUsageError(t *testing.T) {
	if _, code := doctor(t, writeConfig(t, "[sandbox]\nenv_keep = [\"[\"]\n"), nil, "--model", "m"); code == 0 {
		t.Error("a malformed env_keep pattern should fail")
	}
}

// doctor names the credential files commands cannot read, where a mount
// namespace hides them.
func TestDoctorListsTheUnreadableCredentials(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	out, _ := doctor(t, writeConfig(t, "[sandbox]\nallow_read = [\"~/.aws\"]\n"), nil, "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	if !strings.Contains(out, "read-only bind mounts in a mount namespace") {
		t.Skip("no mount namespace here: nothing hides the files")
	}
	if !strings.Contains(out, "unreadable") || !strings.Contains(out, filepath.Join(home, ".ssh")) {
		t.Errorf("doctor does not list ~/.ssh as unreadable:\n%s", out)
	}
}
