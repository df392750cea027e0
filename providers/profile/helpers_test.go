package profile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// Flags are a command line's say in the tests: the overrides, and the
// config file to read.
type Flags struct {
	ConfigPath                                         string
	Profile, Provider, BaseURL, Model, ReasoningEffort string
	ThinkingBudget                                     int
	ThinkingBudgetSet                                  bool
	MaxRetries                                         int
	IdleTimeout                                        time.Duration
}

// resolve reads the providers' part of the config file o names (none when
// it names none) and resolves it as the host does: Resolve, then Ready.
func resolve(o *Flags, getenv func(string) string) (Settings, error) {
	var f File
	if o.ConfigPath != "" {
		if _, err := toml.DecodeFile(o.ConfigPath, &f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Settings{}, err
		}
	}
	s, err := Resolve(f, o.ConfigPath, Overrides{Profile: o.Profile, Provider: o.Provider, BaseURL: o.BaseURL, Model: o.Model,
		ReasoningEffort: o.ReasoningEffort, ThinkingBudget: o.ThinkingBudget, ThinkingBudgetSet: o.ThinkingBudgetSet,
		MaxRetries: o.MaxRetries, IdleTimeout: o.IdleTimeout}, getenv)
	if err != nil {
		return s, err
	}
	return s, s.Ready(o.ConfigPath)
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
