package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// agent doctor says a malformed config file is invalid, with its path and
// the parser's words, and fails; a missing one is "not found".
func TestDoctorSaysAMalformedConfigIsInvalid(t *testing.T) {
	config := writeConfig(t, "model = \"m\"\nmax_steps = = 3\n")
	out, code := doctor(t, config, nil)
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "config ") {
			line = l
		}
	}
	if !strings.Contains(line, config+" (invalid: ") || !strings.Contains(line, "line 2") || strings.Contains(line, "not found") {
		t.Errorf("config line %q, want the path, invalid and the parse error:\n%s", line, out)
	}
	if code != ExitUsage && code != ExitRuntime {
		t.Errorf("exit %d for a malformed config", code)
	}

	unknown := writeConfig(t, "modle = \"m\"\n")
	if out, _ := doctor(t, unknown, nil); !strings.Contains(out, unknown+" (invalid: unknown keys: modle)") {
		t.Errorf("a config with an unknown key:\n%s", out)
	}

	missing := filepath.Join(t.TempDir(), "none.toml")
	if out, _ := doctor(t, missing, nil); !strings.Contains(out, missing+" (not found") {
		t.Errorf("a missing config:\n%s", out)
	}
}
