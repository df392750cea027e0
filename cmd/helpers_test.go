package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// envOf is an environment of the variables in m.
func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// writeConfig writes text as a config file in a temporary directory and
// returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
